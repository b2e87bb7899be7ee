package dev.ordo.client;

/**
 * A namespace's policy (docs/queue.md, "Namespace policies"): what its items get when they leave a
 * field empty. Every field is optional; a namespace without a policy, or a field left null, takes
 * the server's setting. Rates, backlog limits and fair-queueing weights come with later versions.
 *
 * @param defaults for the namespace's items that do not set the field; null: none
 */
public record NamespacePolicy(Defaults defaults) {
  /**
   * @param leaseMs lease of an item that sets none ({@code > 0})
   * @param ttlMs time to live of an item that sets none ({@code > 0})
   * @param maxAttempts deliveries before an item is dead-lettered ({@code >= 1})
   * @param atMostOnce true: items that do not say are at-most-once
   * @param maxPayloadBytes largest payload of the namespace ({@code >= 0}; the server's limit stays the limit above it)
   * @throws IllegalArgumentException naming the field that is out of range
   */
  public record Defaults(Long leaseMs, Long ttlMs, Integer maxAttempts, Boolean atMostOnce, Integer maxPayloadBytes) {
    public Defaults {
      if (leaseMs != null && leaseMs <= 0) {
        throw new IllegalArgumentException("defaults.leaseMs must be > 0, got " + leaseMs);
      }
      if (ttlMs != null && ttlMs <= 0) {
        throw new IllegalArgumentException("defaults.ttlMs must be > 0, got " + ttlMs);
      }
      if (maxAttempts != null && maxAttempts < 1) {
        throw new IllegalArgumentException("defaults.maxAttempts must be >= 1, got " + maxAttempts);
      }
      if (maxPayloadBytes != null && maxPayloadBytes < 0) {
        throw new IllegalArgumentException("defaults.maxPayloadBytes must be >= 0, got " + maxPayloadBytes);
      }
    }
  }

  /** The record Ordo stores on {@code <cluster>.namespaces}. */
  dev.ordo.schema.NamespacePolicy toRecord(String namespace, long updatedAt) {
    dev.ordo.schema.PolicyDefaults d = defaults == null ? null : dev.ordo.schema.PolicyDefaults.newBuilder()
        .setLeaseMs(defaults.leaseMs()).setTtlMs(defaults.ttlMs()).setMaxAttempts(defaults.maxAttempts())
        .setAtMostOnce(defaults.atMostOnce()).setMaxPayloadBytes(defaults.maxPayloadBytes()).build();
    return dev.ordo.schema.NamespacePolicy.newBuilder().setNamespace(namespace).setDefaults(d).setUpdatedAt(updatedAt)
        .build();
  }

  static NamespacePolicy fromRecord(dev.ordo.schema.NamespacePolicy r) {
    dev.ordo.schema.PolicyDefaults d = r.getDefaults();
    return new NamespacePolicy(d == null ? null
        : new Defaults(d.getLeaseMs(), d.getTtlMs(), d.getMaxAttempts(), d.getAtMostOnce(), d.getMaxPayloadBytes()));
  }
}
