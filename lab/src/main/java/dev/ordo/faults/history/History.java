package dev.ordo.faults.history;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The log of one workload run: its operations in the order they were logged, and the same grouped by
 * item ({@link Trail}), which is how the checker's rules read it. Immutable.
 */
public final class History {
  private final List<Op> ops;
  private final Map<String, Trail> trails;
  private final Map<String, Long> serverCounts;
  private final long end;

  public History(List<Op> ops) {
    this.ops = List.copyOf(ops);
    Map<String, TrailBuilder> builders = new LinkedHashMap<>();
    Map<String, Long> counts = new TreeMap<>();
    long latest = 0;
    for (Op op : this.ops) {
      latest = Math.max(latest, op.at());
      if (op instanceof Op.ItemOp itemOp) {
        builders.computeIfAbsent(itemOp.itemKey(), TrailBuilder::new).add(itemOp);
      } else if (op instanceof Op.ServerCounts c) {
        c.counts().forEach((name, n) -> counts.merge(name, n, Long::sum));
      }
    }
    Map<String, Trail> built = new LinkedHashMap<>();
    builders.forEach((key, b) -> built.put(key, b.build()));
    this.trails = Collections.unmodifiableMap(built);
    this.serverCounts = Map.copyOf(counts);
    this.end = latest;
  }

  public static History of(Op... ops) {
    return new History(List.of(ops));
  }

  public List<Op> ops() {
    return ops;
  }

  /** What happened to each item, by item key, in the order the items first appear. */
  public Map<String, Trail> trails() {
    return trails;
  }

  public Collection<Trail> items() {
    return trails.values();
  }

  /** The servers' counters, summed over every {@link Op.ServerCounts}; empty when none was logged. */
  public Map<String, Long> serverCounts() {
    return serverCounts;
  }

  /** The end of the history: its latest event time (0 when empty). */
  public long end() {
    return end;
  }

  /**
   * Everything logged about one item, each kind of event in log order.
   *
   * @param enqueued its acknowledged enqueue, or null
   * @param unknownEnqueue its enqueue without an answer, or null
   * @param remaining whether the final look-up found it still queued
   */
  public record Trail(String itemKey, Op.Enqueued enqueued, Op.EnqueueUnknown unknownEnqueue,
      List<Op.Delivered> deliveries, List<Op.Acked> acks, List<Op.Nacked> nacks, List<Op.Extended> extensions,
      List<Op.Released> releases, List<Op.DeadLettered> deadLetters, boolean remaining) {
    /** The item's settings: from its acknowledged enqueue, else from the unanswered one, else null. */
    public Op.Submission submission() {
      return enqueued != null ? enqueued : unknownEnqueue;
    }

    /** True when some ack was applied, or got no answer and so may have been. */
    public boolean maybeAcked() {
      return acks.stream().anyMatch(a -> a.result() == Op.Outcome.APPLIED || a.result() == Op.Outcome.TIMEOUT);
    }

    public boolean acked() {
      return acks.stream().anyMatch(a -> a.result() == Op.Outcome.APPLIED);
    }

    /** The delivery of that lease, or null when the history does not have it. */
    public Op.Delivered delivery(String leaseId) {
      return deliveries.stream().filter(d -> Objects.equals(d.leaseId(), leaseId)).findFirst().orElse(null);
    }

    /** The highest attempt among its deliveries; 0 when it has none. */
    public int highestAttempt() {
      return deliveries.stream().mapToInt(Op.Delivered::attempt).max().orElse(0);
    }
  }

  /** Collects one item's events while the history is read. */
  private static final class TrailBuilder {
    final String itemKey;
    Op.Enqueued enqueued;
    Op.EnqueueUnknown unknownEnqueue;
    final List<Op.Delivered> deliveries = new ArrayList<>();
    final List<Op.Acked> acks = new ArrayList<>();
    final List<Op.Nacked> nacks = new ArrayList<>();
    final List<Op.Extended> extensions = new ArrayList<>();
    final List<Op.Released> releases = new ArrayList<>();
    final List<Op.DeadLettered> deadLetters = new ArrayList<>();
    boolean remaining;

    TrailBuilder(String itemKey) {
      this.itemKey = itemKey;
    }

    void add(Op.ItemOp op) {
      if (op instanceof Op.Enqueued e) {
        enqueued = enqueued == null ? e : enqueued;
      } else if (op instanceof Op.EnqueueUnknown u) {
        unknownEnqueue = unknownEnqueue == null ? u : unknownEnqueue;
      } else if (op instanceof Op.Delivered d) {
        deliveries.add(d);
      } else if (op instanceof Op.Acked a) {
        acks.add(a);
      } else if (op instanceof Op.Nacked n) {
        nacks.add(n);
      } else if (op instanceof Op.Extended x) {
        extensions.add(x);
      } else if (op instanceof Op.Released r) {
        releases.add(r);
      } else if (op instanceof Op.DeadLettered dl) {
        deadLetters.add(dl);
      } else if (op instanceof Op.Remaining) {
        remaining = true;
      }
    }

    Trail build() {
      return new Trail(itemKey, enqueued, unknownEnqueue, List.copyOf(deliveries), List.copyOf(acks),
          List.copyOf(nacks), List.copyOf(extensions), List.copyOf(releases), List.copyOf(deadLetters), remaining);
    }
  }
}
