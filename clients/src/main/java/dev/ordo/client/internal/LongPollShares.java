package dev.ordo.client.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A dequeue's long poll ({@link DemandPlan#longPoll}): the partitions where its standing demand may be
 * open (cancelled when the dequeue ends), the share each was asked and what came of it since, and those
 * that served their share in full (they dropped the demand and may hold more). Guarded by its
 * {@link PendingDequeue}'s lock.
 */
final class LongPollShares {
  private final Set<Integer> lingering = new TreeSet<>();
  private final Map<Integer, Integer> share = new HashMap<>();
  private final Map<Integer, Integer> got = new HashMap<>();
  private final Set<Integer> filled = new TreeSet<>();

  /** Standing demands for {@code shares}, by partition, were sent. */
  void polled(Map<Integer, Map<String, Integer>> shares) {
    lingering.addAll(shares.keySet());
    shares.forEach((p, counts) -> {
      share.put(p, counts.values().stream().mapToInt(Integer::intValue).sum());
      got.put(p, 0);
    });
  }

  /** Partitions served in full since the last call. */
  Set<Integer> takeFilled() {
    Set<Integer> out = Set.copyOf(filled);
    filled.clear();
    return out;
  }

  /** {@code partition} is asked once instead: what comes from it no longer counts against its share. */
  void askedOnce(int partition) {
    share.remove(partition);
  }

  /** An item came from {@code partition}, outside any once demand. */
  void received(int partition) {
    if (share.containsKey(partition)) {
      int n = got.merge(partition, 1, Integer::sum);
      if (n >= share.get(partition)) {
        share.remove(partition);
        filled.add(partition);
      }
    }
  }

  boolean isEmpty() {
    return lingering.isEmpty();
  }

  /** Partitions where a standing demand may still be open. */
  Set<Integer> lingering() {
    return Set.copyOf(lingering);
  }
}
