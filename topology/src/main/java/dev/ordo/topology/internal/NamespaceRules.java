package dev.ordo.topology.internal;

import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.PolicyDefaults;
import dev.ordo.schema.Rate;

/**
 * What applies to the items of one namespace: the server's defaults and payload limit, each
 * replaced by the namespace policy's when it sets one, and the policy's limits (null: none). The
 * payload limit of a policy can only lower the server's ({@code ordo.payload.max.bytes} is what the
 * brokers and clients are sized for).
 *
 * @param admissionRate items admitted a second across the namespace, or null
 * @param maxBacklog items waiting (ready, delayed, parked) across the namespace, or null
 * @param dispatchRate items leased a second across the namespace, or null
 */
public record NamespaceRules(QueueDefaults defaults, DeliverySemantics semantics, int payloadLimit,
    RateLimit admissionRate, Long maxBacklog, RateLimit dispatchRate) {

  /** A rate: {@code perSecond} a second with at most {@code burst} at once (a token bucket's capacity). */
  public record RateLimit(double perSecond, long burst) {
    static RateLimit of(Rate rate) {
      return rate == null ? null : new RateLimit(rate.getPerSecond(), rate.getBurst());
    }
  }

  /** The server's rules for a namespace without a policy. */
  public NamespaceRules(QueueDefaults defaults, DeliverySemantics semantics, int payloadLimit) {
    this(defaults, semantics, payloadLimit, null, null, null);
  }

  /** True when arrivals may have to wait in OVERFLOW: an admission rate or a backlog limit is set. */
  public boolean limitsAdmission() {
    return admissionRate != null || maxBacklog != null;
  }

  /** The rules of a namespace with {@code policy} (null: the server's). */
  public static NamespaceRules of(QueueDefaults server, int serverPayloadLimit, NamespacePolicy policy) {
    if (policy == null) {
      return new NamespaceRules(server, DeliverySemantics.AT_LEAST_ONCE, serverPayloadLimit);
    }
    PolicyDefaults d = policy.getDefaults();
    QueueDefaults defaults = server;
    DeliverySemantics semantics = DeliverySemantics.AT_LEAST_ONCE;
    int limit = serverPayloadLimit;
    if (d != null) {
      defaults = new QueueDefaults(
          d.getLeaseMs() != null ? d.getLeaseMs() : server.leaseMs(),
          d.getMaxAttempts() != null ? d.getMaxAttempts() : server.maxAttempts(),
          d.getTtlMs() != null ? d.getTtlMs() : server.ttlMs(),
          server.parkAfterMs());
      semantics = Boolean.TRUE.equals(d.getAtMostOnce()) ? DeliverySemantics.AT_MOST_ONCE : DeliverySemantics.AT_LEAST_ONCE;
      limit = d.getMaxPayloadBytes() != null ? Math.min(d.getMaxPayloadBytes(), serverPayloadLimit) : serverPayloadLimit;
    }
    return new NamespaceRules(defaults, semantics, limit, RateLimit.of(policy.getAdmissionRate()),
        policy.getMaxBacklog(), RateLimit.of(policy.getDispatchRate()));
  }
}
