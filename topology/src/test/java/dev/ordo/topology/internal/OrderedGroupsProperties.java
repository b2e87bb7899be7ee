package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.Nack;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import dev.ordo.store.PriorityStore;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

/**
 * Ordered groups through the planner and a real store (docs/queue.md, "Ordered groups"; decisions
 * D60), against a model: random enqueues (three groups and items without a group key, several
 * priorities, some delayed, some with a TTL), a standing demand, acks, nacks with and without a delay
 * (dead-lettered at the last attempt), releases, cancels, lease expiries and index rebuilds. After every
 * step: an ordered group's item is leased only when it is its group's oldest live item, and never two
 * of a group at once; at the end, with time run on and every lease acked, every item is gone: no group
 * is left stuck behind a head that left.
 */
class OrderedGroupsProperties {
  private static final String NS = "ns";
  private static final Requester WORKER = new Requester("w", 0);
  private static final List<String> GROUPS = java.util.Arrays.asList("a", "b", "c", null);

  sealed interface Op permits Enqueue, Want, AckOne, NackOne, ReleaseOne, CancelOne, Advance, Rebuild {}

  record Enqueue(int group, int priority, long delayMs, boolean ttl) implements Op {}

  record Want(int n) implements Op {}

  record AckOne(int pick) implements Op {}

  record NackOne(int pick, long delayMs) implements Op {}

  record ReleaseOne(int pick) implements Op {}

  record CancelOne(int pick) implements Op {}

  record Advance(long ms) implements Op {}

  record Rebuild() implements Op {}

  @Provide
  Arbitrary<List<Op>> sequences() {
    Arbitrary<Op> enqueue = Combinators.combine(Arbitraries.integers().between(0, 3),
        Arbitraries.of(0, 0, 1, 5), Arbitraries.of(0L, 0L, 0L, 40L), Arbitraries.of(false, false, false, true))
        .as(Enqueue::new);
    Arbitrary<Integer> picks = Arbitraries.integers().between(0, 20);
    Arbitrary<Op> op = Arbitraries.frequencyOf(
        Tuple.of(8, enqueue),
        Tuple.of(2, Arbitraries.integers().between(0, 4).map(Want::new)),
        Tuple.of(4, picks.map(AckOne::new)),
        Tuple.of(3, Combinators.combine(picks, Arbitraries.of(0L, 25L, 100L)).as(NackOne::new)),
        Tuple.of(1, picks.map(ReleaseOne::new)),
        Tuple.of(1, picks.map(CancelOne::new)),
        Tuple.of(2, Arbitraries.of(5L, 30L, 31_000L).map(Advance::new)),
        Tuple.of(1, Arbitraries.just(new Rebuild())));
    return op.list().ofMinSize(1).ofMaxSize(60);
  }

  @Property(seed = "48", tries = 250, edgeCases = EdgeCasesMode.NONE)
  void anOrderedGroupLeasesItsOldestLiveItemOnlyOneAtATimeAndNeverGetsStuck(@ForAll("sequences") List<Op> ops) {
    Run run = new Run();
    for (Op op : ops) {
      run.apply(op);
    }
    run.drain();
  }

  /** The same walk as a plain test, for a quick look at one scenario: a nacked head holds its group. */
  @Test
  void aNackedHeadWithADelayHoldsItsGroupAndComesBackFirst() {
    Run run = new Run();
    run.apply(new Enqueue(0, 0, 0, false));
    run.apply(new Enqueue(0, 0, 0, false));
    run.apply(new Enqueue(1, 0, 0, false));
    run.apply(new Want(5));
    assertEquals(List.of(0L, 2L), run.leasedOffsets(), "each group's head, in parallel");
    run.apply(new NackOne(0, 100)); // a's head, back in 100 ms
    assertEquals(List.of(2L), run.leasedOffsets(), "a's second does not overtake its delayed head");
    run.apply(new Advance(100));
    assertEquals(List.of(0L, 2L), run.leasedOffsets(), "due again: the head, not the next");
    run.apply(new AckOne(0));
    assertEquals(List.of(1L, 2L), run.leasedOffsets(), "acked: a's next goes");
  }

  private static final class Run {
    NamespacePolicy policy = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setOrdered(true)
        .setDefaults(dev.ordo.schema.PolicyDefaults.newBuilder().setMaxAttempts(3).build()).build();
    final List<org.apache.kafka.streams.state.KeyValueStore<org.apache.kafka.common.utils.Bytes, byte[]>> kvs =
        new ArrayList<>();
    PriorityStore store = opened(true);
    final QueuePlanner planner = new QueuePlanner(
        new QueuePlanner.Settings(new QueueDefaults(30_000, 5, null, 600_000), List.of(Duration.ofMinutes(1)), 10_000,
            10_000, 0, false, 1),
        0, new SplittableRandom(7), ns -> NS.equals(ns) ? policy : null, NamespaceLoad.NONE);
    long now = 1_000_000;
    long nextOffset;
    /** Live items by offset, with their group (null: none). */
    final Map<Long, String> live = new LinkedHashMap<>();
    /** Leased items by offset: their delivery. */
    final Map<Long, DeliveredItem> leased = new java.util.TreeMap<>();
    final Set<TopicRef> readyTopics = new LinkedHashSet<>();
    final Map<String, List<Long>> firstDeliveries = new HashMap<>();

    void apply(Op op) {
      if (op instanceof Enqueue e) {
        long offset = nextOffset++;
        Item.Builder b = Item.newBuilder().setNamespace(NS).setTopic("t").setPriority(e.priority())
            .setGroupKey(GROUPS.get(e.group())).setPayload(ByteBuffer.wrap(new byte[] {1}));
        if (e.delayMs() > 0) {
          b.setDeliverAfter(now + e.delayMs());
        }
        if (e.ttl()) {
          b.setTtlMs(60L);
        }
        live.put(offset, GROUPS.get(e.group()));
        effects(planner.onItem(offset, now, b.build(), store, now));
      } else if (op instanceof Want w) {
        effects(planner.onCommand(new Command(WORKER, now,
            new Demand(NS, Map.of("t", w.n()), 3_600_000L, true, false, false, -1L, 0L), false, null), store, now));
      } else if (op instanceof AckOne a) {
        DeliveredItem d = pick(a.pick());
        if (d != null) {
          command(new Ack(d.getItemId(), d.getLeaseId()));
        }
      } else if (op instanceof NackOne n) {
        DeliveredItem d = pick(n.pick());
        if (d != null) {
          command(new Nack(d.getItemId(), d.getLeaseId(), n.delayMs(), null, "boom", false));
        }
      } else if (op instanceof ReleaseOne r) {
        DeliveredItem d = pick(r.pick());
        if (d != null) {
          command(new Release(d.getItemId(), d.getLeaseId(), null));
        }
      } else if (op instanceof CancelOne c) {
        if (!live.isEmpty()) {
          long offset = new ArrayList<>(live.keySet()).get(c.pick() % live.size());
          command(new Cancel(new ItemId(0, offset).toString()));
        }
      } else if (op instanceof Advance a) {
        now += a.ms();
        effects(planner.onTimers(store, now));
      } else if (op instanceof Rebuild) {
        store.markChanges(); // no orderly close: the index is rebuilt from the item table, in steps
        store = opened(false);
        effects(planner.dispatch(new ArrayList<>(List.of(new TopicRef(NS, "t"))), store, now));
      }
      check();
    }

    /** A store over the same stores (fresh ones first), its index rebuilt in small steps when not vouched for. */
    private PriorityStore opened(boolean fresh) {
      if (fresh) {
        java.util.Properties props = new java.util.Properties();
        props.put(org.apache.kafka.streams.StreamsConfig.APPLICATION_ID_CONFIG, "ordo-ordered");
        props.put(org.apache.kafka.streams.StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        var context = new org.apache.kafka.streams.processor.api.MockProcessorContext<Object, Object>(props);
        for (String name : new String[] {PriorityStore.STORE_NAME, PriorityStore.INDEX_STORE_NAME}) {
          var kv = org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
              org.apache.kafka.streams.state.Stores.inMemoryKeyValueStore(name),
              org.apache.kafka.common.serialization.Serdes.Bytes(),
              org.apache.kafka.common.serialization.Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
          kv.init(context.getStateStoreContext(), kv);
          kvs.add(kv);
        }
      }
      PriorityStore s = new PriorityStore(kvs.get(0), kvs.get(1));
      if (!s.openIndex()) {
        while (s.rebuilding()) {
          s.rebuildStep(3);
        }
      }
      s.startGeneration();
      return s;
    }

    DeliveredItem pick(int pick) {
      if (leased.isEmpty()) {
        return null;
      }
      return new ArrayList<>(leased.values()).get(pick % leased.size());
    }

    void command(Object body) {
      effects(planner.onCommand(new Command(WORKER, now, body, false, null), store, now));
    }

    List<Long> leasedOffsets() {
      return new ArrayList<>(new TreeSet<>(leased.keySet()));
    }

    /** Applies effects as the processor does, then dispatches the topics they made ready, until none is left. */
    void effects(Effects first) {
      Effects effects = first;
      while (true) {
        for (Effects.Change c : effects.changes()) {
          store.transition(c.offset(), c.before(), c.after());
          if (c.after() == null) {
            live.remove(c.offset());
            leased.remove(c.offset());
          } else if (c.after().getState() != dev.ordo.schema.ItemState.LEASED) {
            leased.remove(c.offset());
          }
        }
        store.markChanges();
        for (Effects.Leased l : effects.leased()) {
          for (DeliveredItem d : l.items()) {
            long offset = ItemId.parse(d.getItemId()).offset();
            String group = d.getGroupKey();
            if (group != null) {
              long oldest = live.entrySet().stream().filter(e -> group.equals(e.getValue()))
                  .mapToLong(Map.Entry::getKey).min().orElseThrow();
              assertEquals(oldest, offset, "group " + group + " leased item " + offset + " before its oldest");
              assertFalse(leased.keySet().stream().anyMatch(o -> group.equals(live.get(o))),
                  "two items of group " + group + " leased at once");
              if (d.getAttempt() == 1) {
                firstDeliveries.computeIfAbsent(group, g -> new ArrayList<>()).add(offset);
              }
            }
            leased.put(offset, d);
          }
        }
        readyTopics.addAll(effects.readyTopics());
        if (readyTopics.isEmpty() || store.rebuilding()) {
          return;
        }
        effects = planner.dispatch(readyTopics, store, now);
      }
    }

    void check() {
      firstDeliveries.forEach((g, offsets) -> {
        List<Long> sorted = new ArrayList<>(offsets);
        sorted.sort(null);
        assertEquals(sorted, offsets, "group " + g + " first delivered in enqueue order");
      });
    }

    /** Time runs on and every lease is acked until nothing is left: no group stays stuck. */
    void drain() {
      apply(new Want(100));
      for (int round = 0; round < 200 && !live.isEmpty(); round++) {
        for (DeliveredItem d : new ArrayList<>(leased.values())) {
          command(new Ack(d.getItemId(), d.getLeaseId()));
        }
        apply(new Advance(200));
        apply(new Want(100));
      }
      assertEquals(Map.of(), live, "items left: a group stuck behind a head that left");
      assertNull(store.orderedHead(NS, "t", "a"));
    }
  }
}
