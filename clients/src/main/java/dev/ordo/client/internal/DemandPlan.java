package dev.ordo.client.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which partitions a dequeue asks, for how many items of each topic: a pure function of what the
 * dequeue wants and of the ready counts and head priorities that {@code <cluster>.topics} carries
 * per partition (FOQS routes a dequeue to the shards holding the best items the same way).
 *
 * <p>For each wanted key (a topic, or {@code *} for any topic of the namespace), in the order given:
 * <ol>
 *   <li>the candidates are the (partition, topic) entries with ready items that match the key,
 *       sorted by head priority (best first), then by ready count (most first), then by partition;
 *       among equal head priorities the partition that served the client's last dequeue comes first
 *       ({@link Sticky}) while its oldest ready item is at most a bound (1 s by default) younger than
 *       the oldest of that priority anywhere. A client's concurrent dequeues then work one partition
 *       rather than spreading over all: under exactly-once each partition a transaction touches costs
 *       its own offsets, changelog batch and marker, so on 32 partitions the spread cost a third more
 *       CPU per item than on 4;</li>
 *   <li>each candidate is asked for as many as it holds, less what earlier keys already asked of the
 *       same entry, until the key's count is covered. So a dequeue of N items of a standing backlog
 *       asks for N items in all, from as few partitions as hold them, whatever the partition count;</li>
 *   <li>what the stats cannot cover (they show fewer ready items than wanted, or none: a queue
 *       draining, or items newer than the last stats record) is asked of <em>every</em> partition,
 *       as a long poll must: items may become ready anywhere. This is the only case where the cost
 *       grows with the partition count, and there are few ready items to lease then.</li>
 * </ol>
 * Priority order across partitions is kept at the grain of the stats: the partition with the best
 * head is asked first. A plan that needed no broadcast is {@link #exact()}: once every asked count
 * has arrived there is nothing better to wait for.
 *
 * @param asks per partition, the counts to ask of it by key (only partitions with a count)
 * @param exact true when the stats covered every count, so nothing was broadcast
 * @param takes what the plan counts on from each stats entry, by {@link #entryKey}: a client holds these as
 *     reserved while the dequeue runs, so that concurrent dequeues aim at different items
 */
public record DemandPlan(Map<Integer, Map<String, Integer>> asks, boolean exact, Map<String, Long> takes) {

  /**
   * What the stats say of one topic on one partition: its ready items (less those taken since), best
   * priority, and when its oldest ready item became ready ({@link Long#MAX_VALUE}: not known).
   */
  public record Entry(int partition, String topic, long ready, int headPriority, long oldestReadyAt) {
    public Entry(int partition, String topic, long ready, int headPriority) {
      this(partition, topic, ready, headPriority, Long.MAX_VALUE);
    }
  }

  /**
   * Which partition the client's dequeues prefer among equal heads: the one that served its last
   * dequeue, while its oldest ready item is at most {@code withinMs} younger than the oldest ready
   * item of the same priority anywhere.
   */
  public record Sticky(int partition, long withinMs) {
    /** No preference. */
    public static final Sticky NONE = new Sticky(-1, 0);
  }

  private static final Comparator<Entry> BEST_FIRST = Comparator.comparingInt(Entry::headPriority)
      .thenComparing(Comparator.comparingLong(Entry::ready).reversed())
      .thenComparingInt(Entry::partition)
      .thenComparing(Entry::topic);

  /**
   * @param wanted counts by key (a topic or {@code *}), each at least 1
   * @param entries the namespace's ready entries from the stats; entries with nothing ready are ignored
   * @param partitions the partition count; every partition {@code 0..partitions-1} may be broadcast to
   */
  public static DemandPlan of(Map<String, Integer> wanted, Collection<Entry> entries, int partitions) {
    return of(wanted, entries, partitions, Sticky.NONE);
  }

  /** The same, the {@code sticky} partition first among the candidates of its head priority while it may be. */
  public static DemandPlan of(Map<String, Integer> wanted, Collection<Entry> entries, int partitions, Sticky sticky) {
    return plan(wanted, entries, partitions, sticky, true);
  }

  /**
   * Only the part the stats cover (steps 1 and 2 above): the partitions with the best heads, asked for
   * what they hold, nothing broadcast; {@link #exact()} when that covers every count. A dequeue asks
   * these once each ({@code Demand.once}) and learns exactly what each will send.
   */
  public static DemandPlan fromStats(Map<String, Integer> wanted, Collection<Entry> entries, int partitions,
      Sticky sticky) {
    return plan(wanted, entries, partitions, sticky, false);
  }

  private static DemandPlan plan(Map<String, Integer> wanted, Collection<Entry> entries, int partitions, Sticky sticky,
      boolean broadcast) {
    List<Entry> sorted = new ArrayList<>();
    for (Entry e : entries) {
      if (e.ready() > 0 && e.partition() >= 0 && e.partition() < partitions) {
        sorted.add(e);
      }
    }
    sorted.sort(BEST_FIRST);
    if (sticky.partition() >= 0 && sticky.withinMs() > 0) {
      stickFirst(sorted, sticky);
    }
    Map<Integer, Map<String, Integer>> asks = new TreeMap<>();
    Map<String, Long> askedOfEntry = new HashMap<>(); // "<partition>/<topic>" -> asked so far
    Map<String, Integer> uncovered = new LinkedHashMap<>();
    for (Map.Entry<String, Integer> w : wanted.entrySet()) {
      String key = w.getKey();
      long left = w.getValue();
      for (Entry e : sorted) {
        if (left == 0) {
          break;
        }
        if (!Selection.ANY_TOPIC.equals(key) && !key.equals(e.topic())) {
          continue;
        }
        String entryKey = entryKey(e.partition(), e.topic());
        long available = e.ready() - askedOfEntry.getOrDefault(entryKey, 0L);
        if (available <= 0) {
          continue;
        }
        long take = Math.min(left, available);
        askedOfEntry.merge(entryKey, take, Long::sum);
        asks.computeIfAbsent(e.partition(), p -> new TreeMap<>()).merge(key, (int) take, Integer::sum);
        left -= take;
      }
      if (left > 0) {
        uncovered.put(key, (int) left);
      }
    }
    if (broadcast && !uncovered.isEmpty()) {
      for (int p = 0; p < partitions; p++) {
        Map<String, Integer> counts = asks.computeIfAbsent(p, x -> new TreeMap<>());
        uncovered.forEach((key, n) -> counts.merge(key, n, Integer::sum));
      }
    }
    Map<Integer, Map<String, Integer>> frozen = new LinkedHashMap<>();
    asks.forEach((p, counts) -> frozen.put(p, Map.copyOf(counts)));
    return new DemandPlan(Map.copyOf(frozen), uncovered.isEmpty(), Map.copyOf(askedOfEntry));
  }

  /**
   * Moves the sticky partition's entries to the front of their run of equal head priorities in
   * {@code sorted}, unless items of that priority elsewhere have been ready longer than its own
   * oldest by more than the bound.
   */
  private static void stickFirst(List<Entry> sorted, Sticky sticky) {
    int from = 0;
    while (from < sorted.size()) {
      int priority = sorted.get(from).headPriority();
      int to = from;
      long oldest = Long.MAX_VALUE;
      while (to < sorted.size() && sorted.get(to).headPriority() == priority) {
        oldest = Math.min(oldest, sorted.get(to).oldestReadyAt());
        to++;
      }
      List<Entry> run = sorted.subList(from, to);
      List<Entry> first = new ArrayList<>();
      List<Entry> rest = new ArrayList<>();
      for (Entry e : run) {
        boolean young = oldest != Long.MAX_VALUE
            && (e.oldestReadyAt() == Long.MAX_VALUE || e.oldestReadyAt() - oldest > sticky.withinMs());
        (e.partition() == sticky.partition() && !young ? first : rest).add(e);
      }
      if (!first.isEmpty()) {
        first.addAll(rest);
        for (int i = 0; i < first.size(); i++) {
          run.set(i, first.get(i));
        }
      }
      from = to;
    }
  }

  /**
   * A long poll over every partition, for what the stats do not show: each partition is asked for
   * {@code ceil(N / P)} of each key (at least 1), so that an item becoming ready anywhere is leased at
   * once, and a burst on every partition at the same moment grants at most about N in all. Asking each
   * of P partitions for all N items granted up to P times N to one dequeue, the surplus then given back
   * (decisions D50).
   */
  public static DemandPlan longPoll(Map<String, Integer> wanted, int partitions) {
    List<Integer> all = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      all.add(p);
    }
    return longPoll(wanted, all);
  }

  /** {@link #longPoll(Map, int)} over the {@code partitions} given (those not asked otherwise). */
  public static DemandPlan longPoll(Map<String, Integer> wanted, Collection<Integer> partitions) {
    Map<Integer, Map<String, Integer>> asks = new LinkedHashMap<>();
    int n = partitions.size();
    for (int p : partitions) {
      Map<String, Integer> counts = new TreeMap<>();
      wanted.forEach((key, count) -> {
        if (count > 0) {
          counts.put(key, (int) Math.max(1, (count + (long) n - 1) / n));
        }
      });
      if (!counts.isEmpty()) {
        asks.put(p, Map.copyOf(counts));
      }
    }
    return new DemandPlan(Map.copyOf(asks), false, Map.of());
  }

  /** The key of a stats entry in {@link #takes}: {@code <partition>/<topic>}. */
  public static String entryKey(int partition, String topic) {
    return partition + "/" + topic;
  }

  /** The partitions asked, in order. */
  public Set<Integer> partitions() {
    return new TreeSet<>(asks.keySet());
  }

  /** Items asked in all, over every partition and key. */
  public long total() {
    long n = 0;
    for (Map<String, Integer> counts : asks.values()) {
      for (int c : counts.values()) {
        n += c;
      }
    }
    return n;
  }
}
