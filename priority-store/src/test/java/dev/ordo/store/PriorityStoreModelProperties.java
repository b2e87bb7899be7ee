package dev.ordo.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.FairShares;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;

/**
 * Random sequences of transitions against a {@link PriorityStore} on RocksDB and against a
 * trivial model (a map from offset to item, every answer computed by sorting it). After the steps
 * the store must give the model's answers: ready heads, due timers, oldest ready time, counts,
 * topics and items. This is what shows that the scan cursors never hide an item: pops move the
 * cursors forward over tombstones, and later items land below them (a higher priority, an older
 * ready time, an earlier timer), in any interleaving with restarts (a fresh instance, no cursors).
 *
 * <p>Values come from small domains with the extremes in them, so ties, negative priorities and
 * MIN/MAX times occur in almost every sequence, and topic names include a prefix pair ("a", "ab"),
 * a multi-byte name and two namespaces.
 */
class PriorityStoreModelProperties {
  private static final int ALL = 1_000;
  private static final List<String[]> TOPICS =
      List.of(new String[] {"n", "a"}, new String[] {"n", "ab"}, new String[] {"n", "\u00e9\u65e5"}, new String[] {"n2", "a"});
  private static final List<String> NAMESPACES = List.of("n", "n2", "n\u00e9");
  private static final long[] PROBES = {Long.MIN_VALUE, -1, 2, 4, Long.MAX_VALUE};

  private RocksKv rocks;

  @BeforeTry
  void open() {
    rocks = RocksKv.open("model");
  }

  @AfterTry
  void close() {
    rocks.close();
  }

  /** The model's answers after every step. */
  @Property(seed = "42", tries = 150)
  void agreesWithTheModelAfterEveryStep(@ForAll("sequences") List<Op> ops) {
    Run run = new Run(rocks);
    for (Op op : ops) {
      run.apply(op);
      run.check();
    }
  }

  /** Checks only at random points, so several transitions and pops pile up between two scans. */
  @Property(seed = "43", tries = 150)
  void agreesWithTheModelWhenScansAreRare(@ForAll("sequences") List<Op> ops) {
    Run run = new Run(rocks);
    for (Op op : ops) {
      run.apply(op);
      if (op instanceof Check) {
        run.check();
      }
    }
    run.check();
  }

  /**
   * Ordered groups (decisions D60) most of the time, without jqwik's edge cases (which the tries above
   * are mostly spent on): a group's head removed, leased, delayed and back while later items of the
   * group wait READY, across restarts and rebuilds.
   */
  @Property(seed = "44", tries = 200, edgeCases = net.jqwik.api.EdgeCasesMode.NONE)
  void agreesWithTheModelForOrderedGroups(@ForAll("orderedSequences") List<Op> ops) {
    Run run = new Run(rocks);
    for (Op op : ops) {
      run.apply(op);
      run.check();
    }
  }

  @Provide
  Arbitrary<List<Op>> orderedSequences() {
    return sequences(Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.integers().between(56, 71)),
        Tuple.of(1, Arbitraries.integers().between(0, 71))), Arbitraries.integers().between(0, 1));
  }

  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // the Sideline step copies items before any is encoded
  }

  // ---- operations ----

  sealed interface Op permits Put, Delete, Pop, Lease, Fire, Sideline, Restart, Check {}

  /**
   * Insert, or replace the item at {@code slot} (its topic stays: an item never changes topic);
   * {@code variant} picks its lane, its fair-queueing slot (0-3), its group (none, g or h) and its layout
   * (flat in the ready index, or in its group's queue: decisions D48). A put that replaces a READY item
   * with the same key but the other layout is the planner's move of a flat item into its group's queue.
   * From 48 on the item is an ordered group's (decisions D60; kept for the item's life, as its group): only
   * its group's oldest live item, when READY, is in the ready index.
   */
  record Put(int slot, int topic, ItemState state, int priority, long readyAt, long leaseExpiresAt, Long expiresAt,
      int variant) implements Op {
    boolean sidelined() {
      return variant % 2 == 1;
    }

    long fairSlot() {
      return (variant / 2) % 4;
    }

    boolean flat() {
      return variant >= 24 && variant < 48;
    }

    boolean ordered() {
      return variant >= 48;
    }

    String group() {
      return switch ((variant % 24) / 8) {
        case 1 -> "g";
        case 2 -> "h";
        default -> null;
      };
    }
  }

  /** Sidelining, as dispatch does: the fresh-lane items ready before a time, longest first, to the backlog lane. */
  record Sideline(int topic, long readyBefore, int max) implements Op {}

  record Delete(int slot) implements Op {}

  /** Dequeue and ack: readyHead, then READY → LEASED → deleted for each, as the topology does. */
  record Pop(int topic, int batch) implements Op {}

  /** Dequeue without ack: READY → LEASED. */
  record Lease(int topic, int batch, long leaseExpiresAt) implements Op {}

  /** A punctuation: the due timers of one kind, acted on (DUE → READY, LEASE → READY or gone, TTL → gone). */
  record Fire(TimerKind kind, long now, int max, boolean redeliver) implements Op {}

  /** A new instance over the same state: the cursors are lost, as when a task moves. */
  /** The stream thread stops and a new store object takes over: after an orderly close, or a crash. */
  record Restart(boolean orderly) implements Op {}

  record Check() implements Op {}

  @Provide
  Arbitrary<List<Op>> sequences() {
    return sequences(Arbitraries.integers().between(0, 71), Arbitraries.integers().between(0, TOPICS.size() - 1));
  }

  private Arbitrary<List<Op>> sequences(Arbitrary<Integer> variants, Arbitrary<Integer> topics) {
    Arbitrary<Integer> slots = Arbitraries.integers().between(0, 15);
    // Priority 0 and READY most often, so that a group often has several ready items at one priority.
    Arbitrary<Integer> priorities = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(0)),
        Tuple.of(2, Arbitraries.of(Integer.MIN_VALUE, -1, 0, 1, 2, Integer.MAX_VALUE)));
    Arbitrary<ItemState> states = Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(ItemState.READY)),
        Tuple.of(3, Arbitraries.of(ItemState.class)));
    Arbitrary<Long> times = Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.longs().between(-2, 6)),
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE)));
    Arbitrary<Long> ttls = Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(null)), Tuple.of(1, times));
    Arbitrary<Op> put = Combinators.combine(slots, topics, states, priorities, times, times, ttls,
            variants)
        .as(Put::new);
    Arbitrary<Op> delete = slots.map(Delete::new);
    Arbitrary<Integer> batches = Arbitraries.integers().between(1, 5);
    Arbitrary<Op> sideline = Combinators.combine(topics, times, batches).as(Sideline::new);
    Arbitrary<Op> pop = Combinators.combine(topics, batches).as(Pop::new);
    Arbitrary<Op> lease = Combinators.combine(topics, batches, times).as(Lease::new);
    Arbitrary<Op> fire = Combinators.combine(Arbitraries.of(TimerKind.class), times, batches, Arbitraries.of(true, false))
        .as(Fire::new);
    Arbitrary<Op> op = Arbitraries.frequencyOf(
        Tuple.of(8, put),
        Tuple.of(1, delete),
        Tuple.of(3, pop),
        Tuple.of(1, lease),
        Tuple.of(2, fire),
        Tuple.of(1, sideline),
        Tuple.of(1, Arbitraries.of(true, false).map(Restart::new)),
        Tuple.of(2, Arbitraries.just(new Check())));
    return op.list().ofMinSize(1).ofMaxSize(80);
  }

  // ---- store and model side by side ----

  private static final class Run {
    private final RocksKv rocks;
    private PriorityStore store;
    private final Map<Long, StoredItem> model = new TreeMap<>();

    Run(RocksKv rocks) {
      this.rocks = rocks;
      this.store = opened(rocks);
    }

    /** Whether the last open rebuilt the index (then the fair state is what a rebuild makes of the items). */
    private boolean rebuiltOnOpen;

    private PriorityStore opened(RocksKv rocks) {
      PriorityStore s = new PriorityStore(rocks.kv);
      rebuiltOnOpen = IndexRebuildTest.rebuilt(s) >= 0;
      s.startGeneration();
      return s;
    }

    // ---- the model of fair queueing's state (docs/store.md, "Fair shares") ----

    /** {ready, leased, slot, queued} by key, as the store must hold it. */
    private final Map<FairShares.Key, long[]> fair = new HashMap<>();

    private static boolean counted(StoredItem s) {
      return s != null && (s.getState() == ItemState.READY || s.getState() == ItemState.LEASED);
    }

    private List<FairShares.Key> fairKeys(StoredItem s) {
      Item i = s.getItem();
      List<FairShares.Key> keys = new ArrayList<>();
      keys.add(new FairShares.Key(i.getNamespace(), i.getTopic(), i.getPriority(), null));
      if (i.getGroupKey() != null) {
        keys.add(new FairShares.Key(i.getNamespace(), i.getTopic(), i.getPriority(), i.getGroupKey()));
      }
      return keys;
    }

    private void fairChange(StoredItem before, StoredItem after) {
      if (counted(before)) {
        for (FairShares.Key k : fairKeys(before)) {
          long[] e = fair.get(k);
          e[before.getState() == ItemState.READY ? 0 : 1]--;
          e[3] -= queued(k, before);
        }
      }
      if (counted(after)) {
        boolean lease = after.getState() == ItemState.LEASED;
        for (FairShares.Key k : fairKeys(after)) {
          long[] e = fair.computeIfAbsent(k, x -> new long[4]);
          e[after.getState() == ItemState.READY ? 0 : 1]++;
          e[3] += queued(k, after);
          if (k.group() != null || lease) {
            e[2] = Math.max(e[2], after.getSlot());
          }
        }
      }
      fair.values().removeIf(e -> e[0] <= 0 && e[1] <= 0);
    }

    /** 1 when {@code s} counts in the group entry {@code k} as waiting in its group's queue. */
    private static int queued(FairShares.Key k, StoredItem s) {
      return k.group() != null && s.getState() == ItemState.READY && !s.getFlat() && !s.getOrdered() ? 1 : 0;
    }

    private void rebuildFair() {
      fair.clear();
      model.values().forEach(s -> fairChange(null, s));
    }

    void apply(Op op) {
      if (op instanceof Put p) {
        StoredItem before = model.get((long) p.slot());
        String[] nt = before == null ? TOPICS.get(p.topic())
            : new String[] {before.getItem().getNamespace(), before.getItem().getTopic()};
        StoredItem after = Items.stored(nt[0], nt[1], p.priority(), p.state(), p.readyAt(), p.leaseExpiresAt(),
            p.expiresAt(), new byte[] {(byte) p.slot()});
        after.setSidelined(p.sidelined());
        after.setSlot(p.fairSlot());
        after.getItem().setGroupKey(before == null ? p.group() : before.getItem().getGroupKey());
        after.setFlat(p.flat());
        after.setOrdered(before == null ? p.ordered() : before.getOrdered());
        transition(p.slot(), after);
      } else if (op instanceof Delete d) {
        transition(d.slot(), null);
      } else if (op instanceof Pop p) {
        String[] nt = TOPICS.get(p.topic());
        List<ReadyEntry> head = store.readyHead(nt[0], nt[1], p.batch());
        assertEquals(limit(ready(nt), p.batch()), head, "readyHead before a pop");
        for (ReadyEntry e : head) {
          transition(e.offset(), Items.leased(model.get(e.offset()), 42));
          transition(e.offset(), null);
        }
      } else if (op instanceof Lease l) {
        String[] nt = TOPICS.get(l.topic());
        List<ReadyEntry> head = store.readyHead(nt[0], nt[1], l.batch());
        assertEquals(limit(ready(nt), l.batch()), head, "readyHead before a lease");
        for (ReadyEntry e : head) {
          transition(e.offset(), Items.leased(model.get(e.offset()), l.leaseExpiresAt()));
        }
      } else if (op instanceof Fire f) {
        List<TimerEntry> due = store.dueTimers(f.kind(), f.now(), f.max());
        assertEquals(limit(timers(f.kind(), f.now()), f.max()), due, "dueTimers " + f.kind() + " at " + f.now());
        for (TimerEntry t : due) {
          StoredItem s = model.get(t.offset());
          StoredItem next = switch (t.kind()) {
            case DUE -> StoredItem.newBuilder(s).setState(ItemState.READY).build();
            case LEASE -> f.redeliver()
                ? StoredItem.newBuilder(s).setState(ItemState.READY).setLeaseExpiresAt(null).build() : null;
            case TTL -> null;
          };
          transition(t.offset(), next);
        }
      } else if (op instanceof Sideline sl) {
        String[] nt = TOPICS.get(sl.topic());
        List<Long> old = store.readyBefore(nt[0], nt[1], sl.readyBefore(), sl.max());
        List<Long> expected = model.entrySet().stream()
            .filter(e -> e.getValue().getState() == ItemState.READY && !e.getValue().getSidelined() && in(e.getValue(), nt)
                && e.getValue().getReadyAt() < sl.readyBefore())
            .sorted(Comparator.comparing((Map.Entry<Long, StoredItem> e) -> e.getValue().getReadyAt())
                .thenComparing(Map.Entry::getKey))
            .map(Map.Entry::getKey).limit(sl.max()).toList();
        assertEquals(expected, old, "fresh items ready before " + sl.readyBefore());
        for (long offset : old) {
          transition(offset, StoredItem.newBuilder(model.get(offset)).setSidelined(true).build());
        }
      } else if (op instanceof Restart r) {
        if (r.orderly()) {
          store.markChanges(); // as the processor does after each record and punctuation
          store.closeIndex();
        }
        store = opened(rocks);
        if (rebuiltOnOpen) {
          rebuildFair();
        }
      }
    }

    private void transition(long offset, StoredItem after) {
      StoredItem before = model.get(offset);
      if (before == null && after == null) {
        return;
      }
      store.transition(offset, before, after);
      fairChange(before, after);
      if (after == null) {
        model.remove(offset);
      } else {
        model.put(offset, after);
      }
    }

    void check() {
      for (String[] nt : TOPICS) {
        List<ReadyEntry> expected = ready(nt);
        String topic = nt[0] + "/" + nt[1];
        assertEquals(limit(expected, 1), store.readyHead(nt[0], nt[1], 1), "head of " + topic);
        assertEquals(expected, store.readyHead(nt[0], nt[1], ALL), "ready items of " + topic);
        assertEquals(limit(expected, 3), store.readyHead(nt[0], nt[1], 3), "first three of " + topic);
        List<ReadyEntry> dispatchOrder = model.entrySet().stream()
            .filter(e -> e.getValue().getState() == ItemState.READY && in(e.getValue(), nt) && orderedHeadOrNone(e.getKey()))
            .map(e -> entry(e.getKey(), e.getValue())).sorted().toList();
        assertEquals(dispatchOrder, peeked(store.peek(nt[0], nt[1], ALL)), "peek at all of " + topic);
        assertEquals(limit(dispatchOrder, 3), peeked(store.peek(nt[0], nt[1], 3)), "peek at three of " + topic);
        assertEquals(oldest(nt), store.oldestReadyAt(nt[0], nt[1]), "oldest ready of " + topic);
        assertEquals(counts(nt[0], nt[1]), store.counts(nt[0], nt[1]), "counts of " + topic);
        for (int priority : new int[] {Integer.MIN_VALUE, -1, 0, 1, 2, Integer.MAX_VALUE}) {
          for (String group : new String[] {"g", "h"}) {
            List<ReadyEntry> expectedGroup = group(nt, priority, group);
            assertEquals(expectedGroup, store.groupHead(nt[0], nt[1], priority, group, ALL), "group " + group + " of " + topic);
            assertEquals(limit(expectedGroup, 1), store.groupHead(nt[0], nt[1], priority, group, 1), "first of " + group);
          }
        }
      }
      for (String ns : NAMESPACES) {
        List<TopicCounts> expected = TOPICS.stream().filter(nt -> nt[0].equals(ns))
            .sorted(Comparator.comparing((String[] nt) -> nt[1], PriorityStoreModelProperties::compareCodePoints))
            .map(nt -> counts(nt[0], nt[1])).filter(c -> c.total() > 0).toList();
        assertEquals(expected, store.topics(ns), "topics of " + ns);
        long[] sum = new long[5];
        for (TopicCounts c : expected) {
          sum[0] += c.ready();
          sum[1] += c.delayed();
          sum[2] += c.leased();
          sum[3] += c.parked();
          sum[4] += c.overflow();
        }
        assertEquals(new TopicCounts(ns, "*", sum[0], sum[1], sum[2], sum[3], sum[4]), store.namespaceCounts(ns),
            "counts of namespace " + ns);
        List<Long> overflow = model.entrySet().stream()
            .filter(e -> e.getValue().getState() == ItemState.OVERFLOW && e.getValue().getItem().getNamespace().equals(ns))
            .map(Map.Entry::getKey).toList(); // the model is a TreeMap: offset order
        assertEquals(overflow, store.overflowHead(ns, ALL), "overflow of " + ns + ", in arrival order");
        assertEquals(limit(overflow, 2), store.overflowHead(ns, 2), "first two in overflow of " + ns);
        assertEquals(!overflow.isEmpty(), store.overflowNamespaces().contains(ns), "overflowing namespaces");
      }
      assertEquals(TOPICS.stream().map(nt -> counts(nt[0], nt[1])).filter(c -> c.total() > 0).count(),
          store.allTopics().size(), "all topics");
      for (TimerKind kind : TimerKind.values()) {
        for (long now : PROBES) {
          assertEquals(limit(timers(kind, now), 2), store.dueTimers(kind, now, 2), kind + " timers due by " + now);
          assertEquals(timers(kind, now), store.dueTimers(kind, now, ALL), kind + " timers due by " + now);
        }
      }
      for (long slot = 0; slot < 16; slot++) {
        assertEquals(model.get(slot), store.get(slot), "item " + slot);
      }
      for (String[] nt : TOPICS) {
        for (String group : new String[] {"g", "h"}) {
          Long head = model.entrySet().stream().filter(e -> ordered(e.getValue()) && in(e.getValue(), nt)
              && group.equals(e.getValue().getItem().getGroupKey())).map(Map.Entry::getKey).findFirst().orElse(null);
          assertEquals(head, store.orderedHead(nt[0], nt[1], group), "head of ordered group " + group + " of " + nt[1]);
        }
      }
      for (String ns : NAMESPACES) {
        for (String group : new String[] {"g", "h"}) {
          long leased = model.values().stream().filter(x -> x.getState() == ItemState.LEASED
              && x.getItem().getNamespace().equals(ns) && group.equals(x.getItem().getGroupKey())).count();
          assertEquals(leased, store.groupLeased(ns, group), "items of group " + group + " leased in " + ns);
        }
      }
      Map<FairShares.Key, List<Long>> expectedFair = new HashMap<>();
      fair.forEach((k, e) -> expectedFair.put(k, List.of(e[0], e[1], e[2], e[3])));
      Map<FairShares.Key, List<Long>> actualFair = new HashMap<>();
      store.fairShares().forEach((k, e) -> actualFair.put(k, List.of(e[0], e[1], e[2], e[3])));
      assertEquals(expectedFair, actualFair, "fair queueing's state {ready, leased, slot, queued}");
      fair.forEach((k, e) -> {
        if (k.group() == null) {
          assertEquals(e[2], store.virtualTime(k.namespace(), k.topic(), k.priority()), "virtual time of " + k);
        } else {
          assertEquals(e[2], store.groupLastSlot(k.namespace(), k.topic(), k.priority(), k.group()), "last slot of " + k);
        }
      });
    }

    private static List<ReadyEntry> peeked(List<HeadPeek.Entry> entries) {
      return entries.stream().map(e -> entry(e.offset(), e.item())).toList();
    }

    private static ReadyEntry entry(long offset, StoredItem s) {
      return new ReadyEntry(s.getItem().getPriority(), s.getSidelined(), s.getSlot(), s.getReadyAt(), offset);
    }

    /**
     * The ready index of a topic: its items without a group, its groups' flat items, and the first
     * queued item of each group and priority.
     */
    private List<ReadyEntry> ready(String[] nt) {
      Map<List<Object>, ReadyEntry> firstOfGroup = new HashMap<>();
      List<ReadyEntry> out = new ArrayList<>();
      model.forEach((offset, s) -> {
        if (s.getState() != ItemState.READY || !in(s, nt)) {
          return;
        }
        ReadyEntry e = entry(offset, s);
        String group = s.getItem().getGroupKey();
        if (ordered(s)) {
          if (orderedHeadOrNone(offset)) {
            out.add(e); // an ordered group's oldest live item, READY: its only entry (D60)
          }
        } else if (group == null || s.getFlat()) {
          out.add(e);
        } else {
          firstOfGroup.merge(List.of(s.getItem().getPriority(), group), e, (a, b) -> a.compareTo(b) <= 0 ? a : b);
        }
      });
      out.addAll(firstOfGroup.values());
      out.sort(null);
      return out;
    }

    private static boolean ordered(StoredItem s) {
      return s.getOrdered() && s.getItem().getGroupKey() != null;
    }

    /** True unless the item at {@code offset} is an ordered group's with an older live item of its group. */
    private boolean orderedHeadOrNone(long offset) {
      StoredItem s = model.get(offset);
      if (!ordered(s)) {
        return true;
      }
      return model.entrySet().stream().noneMatch(e -> e.getKey() < offset && ordered(e.getValue())
          && e.getValue().getItem().getNamespace().equals(s.getItem().getNamespace())
          && e.getValue().getItem().getTopic().equals(s.getItem().getTopic())
          && e.getValue().getItem().getGroupKey().equals(s.getItem().getGroupKey()));
    }

    /** A group's queued ready items at a priority, in order. */
    private List<ReadyEntry> group(String[] nt, int priority, String group) {
      return model.entrySet().stream()
          .filter(e -> e.getValue().getState() == ItemState.READY && !e.getValue().getFlat() && !ordered(e.getValue())
              && in(e.getValue(), nt)
              && e.getValue().getItem().getPriority() == priority && group.equals(e.getValue().getItem().getGroupKey()))
          .map(e -> entry(e.getKey(), e.getValue())).sorted().toList();
    }

    private Long oldest(String[] nt) {
      return model.values().stream().filter(s -> s.getState() == ItemState.READY && in(s, nt))
          .map(StoredItem::getReadyAt).min(Long::compare).orElse(null);
    }

    private List<TimerEntry> timers(TimerKind kind, long now) {
      List<TimerEntry> out = new ArrayList<>();
      model.forEach((offset, s) -> {
        Long due = switch (kind) {
          case DUE -> s.getState() == ItemState.DELAYED ? s.getReadyAt() : null;
          case LEASE -> s.getState() == ItemState.LEASED ? s.getLeaseExpiresAt() : null;
          case TTL -> s.getExpiresAt();
        };
        if (due != null && due <= now) {
          out.add(new TimerEntry(kind, due, offset));
        }
      });
      out.sort(Comparator.comparingLong(TimerEntry::dueAt).thenComparingLong(TimerEntry::offset));
      return out;
    }

    private TopicCounts counts(String ns, String topic) {
      Map<ItemState, Long> byState = model.values().stream().filter(s -> in(s, new String[] {ns, topic}))
          .collect(Collectors.groupingBy(StoredItem::getState, Collectors.counting()));
      return new TopicCounts(ns, topic, byState.getOrDefault(ItemState.READY, 0L),
          byState.getOrDefault(ItemState.DELAYED, 0L), byState.getOrDefault(ItemState.LEASED, 0L),
          byState.getOrDefault(ItemState.PARKED, 0L), byState.getOrDefault(ItemState.OVERFLOW, 0L));
    }

    private static boolean in(StoredItem s, String[] nt) {
      return Objects.equals(s.getItem().getNamespace(), nt[0]) && Objects.equals(s.getItem().getTopic(), nt[1]);
    }
  }

  private static <T> List<T> limit(List<T> list, int n) {
    return list.subList(0, Math.min(n, list.size()));
  }

  private static int compareCodePoints(String a, String b) {
    return java.util.Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());
  }
}
