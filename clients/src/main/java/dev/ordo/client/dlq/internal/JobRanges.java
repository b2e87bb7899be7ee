package dev.ordo.client.dlq.internal;

import dev.ordo.client.dlq.DeadLetterId;
import dev.ordo.client.dlq.UnknownDeadLetterException;
import dev.ordo.schema.DlqRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The part of {@code <cluster>.dlq} a job covers, fixed when it is created: each partition from
 * its first retained offset (or the first at the filter's {@code from} time) to its end at that
 * moment, or, for a selection by ID, from the smallest to past the largest ID of the partition.
 * Dead letters arriving later are not the job's. Pure: the offsets are passed in.
 */
public final class JobRanges {
  private JobRanges() {}

  /**
   * @param begins first retained offset per partition
   * @param ends end offset per partition (read_committed: the last stable offset)
   * @param fromOffsets per partition, the first offset whose timestamp is at or after the filter's
   *     {@code from}, or null (no {@code from}, or none that late: then nothing of that partition)
   */
  public static List<DlqRange> forFilter(Map<Integer, Long> begins, Map<Integer, Long> ends,
      Map<Integer, Long> fromOffsets) {
    List<DlqRange> ranges = new ArrayList<>();
    for (Map.Entry<Integer, Long> e : new TreeMap<>(ends).entrySet()) {
      int p = e.getKey();
      long end = e.getValue();
      long next = begins.getOrDefault(p, 0L);
      if (fromOffsets != null) {
        Long at = fromOffsets.get(p);
        next = Math.max(next, at == null ? end : at);
      }
      ranges.add(new DlqRange(p, Math.min(next, end), end));
    }
    return ranges;
  }

  /**
   * Ranges covering {@code ids}; every ID must name a retained record of the topic, else
   * {@link UnknownDeadLetterException} lists those that do not.
   */
  public static List<DlqRange> forIds(List<DeadLetterId> ids, Map<Integer, Long> begins, Map<Integer, Long> ends) {
    List<String> unknown = new ArrayList<>();
    TreeMap<Integer, long[]> span = new TreeMap<>();
    for (DeadLetterId id : ids) {
      Long end = ends.get(id.partition());
      long begin = begins.getOrDefault(id.partition(), 0L);
      if (end == null || id.offset() < begin || id.offset() >= end) {
        unknown.add(id.toString());
        continue;
      }
      span.merge(id.partition(), new long[] {id.offset(), id.offset() + 1},
          (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
    }
    if (!unknown.isEmpty()) {
      throw new UnknownDeadLetterException(unknown);
    }
    List<DlqRange> ranges = new ArrayList<>();
    span.forEach((p, s) -> ranges.add(new DlqRange(p, s[0], s[1])));
    return ranges;
  }

  /** Records still to read in {@code ranges}. */
  public static long remaining(List<DlqRange> ranges) {
    return ranges.stream().mapToLong(r -> Math.max(0, r.getEnd() - r.getNext())).sum();
  }
}
