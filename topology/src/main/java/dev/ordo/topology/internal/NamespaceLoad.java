package dev.ordo.topology.internal;

/**
 * What the other partitions report of a namespace (through {@code <cluster>.topics}): how a
 * partition learns its share of a namespace-wide rate or backlog limit. Read-only.
 */
@FunctionalInterface
public interface NamespaceLoad {
  /**
   * @param waiting items waiting (ready, delayed, parked) on the other partitions
   * @param demand items wanting admission on the other partitions: in OVERFLOW plus arriving a second
   * @param ready items ready on the other partitions (what a dispatch rate is shared by)
   * @param partitions other partitions that report demand (arrivals or overflow) for the namespace
   */
  record Load(long waiting, double demand, long ready, int partitions) {
    public static final Load NONE = new Load(0, 0, 0, 0);
  }

  /** No other partition reports anything: every partition takes a namespace's whole rate. */
  NamespaceLoad NONE = (namespace, partition, now) -> Load.NONE;

  /** The namespace's load on every partition but {@code partition}, as known at {@code now}. */
  Load others(String namespace, int partition, long now);
}
