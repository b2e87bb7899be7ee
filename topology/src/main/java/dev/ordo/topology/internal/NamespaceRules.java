package dev.ordo.topology.internal;

import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.PolicyDefaults;

/**
 * What applies to the items of one namespace: the server's defaults and payload limit, each
 * replaced by the namespace policy's when it sets one. The payload limit of a policy can only
 * lower the server's ({@code ordo.payload.max.bytes} is what the brokers and clients are sized for).
 */
public record NamespaceRules(QueueDefaults defaults, DeliverySemantics semantics, int payloadLimit) {
  /** The rules of a namespace with {@code policy} (null: the server's). */
  public static NamespaceRules of(QueueDefaults server, int serverPayloadLimit, NamespacePolicy policy) {
    PolicyDefaults d = policy == null ? null : policy.getDefaults();
    if (d == null) {
      return new NamespaceRules(server, DeliverySemantics.AT_LEAST_ONCE, serverPayloadLimit);
    }
    QueueDefaults defaults = new QueueDefaults(
        d.getLeaseMs() != null ? d.getLeaseMs() : server.leaseMs(),
        d.getMaxAttempts() != null ? d.getMaxAttempts() : server.maxAttempts(),
        d.getTtlMs() != null ? d.getTtlMs() : server.ttlMs(),
        server.parkAfterMs());
    DeliverySemantics semantics = Boolean.TRUE.equals(d.getAtMostOnce())
        ? DeliverySemantics.AT_MOST_ONCE : DeliverySemantics.AT_LEAST_ONCE;
    int limit = d.getMaxPayloadBytes() != null ? Math.min(d.getMaxPayloadBytes(), serverPayloadLimit) : serverPayloadLimit;
    return new NamespaceRules(defaults, semantics, limit);
  }
}
