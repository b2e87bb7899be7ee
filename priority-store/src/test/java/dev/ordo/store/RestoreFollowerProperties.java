package dev.ordo.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.FairShares;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;

/**
 * A {@link RestoreFollower} in front of a restored item table keeps the index store the processor
 * then trusts: an active store runs random transitions (with held writes, flushes and restarts, as
 * the processor does), its item table's writes are its changelog, and the changelog is restored in
 * random batches into a second table, the follower opening at a random batch (on an index nobody
 * vouched for, or on one an earlier follower vouched for). The vouched index must open without a
 * rebuild and answer every read as an index rebuilt from the restored table does.
 */
class RestoreFollowerProperties {
  private static final List<String[]> TOPICS =
      List.of(new String[] {"n", "a"}, new String[] {"n", "ab"}, new String[] {"n2", "a"});
  private static final List<String> GROUPS = List.of("g", "h");

  private RocksKv activeItems;
  private RocksKv activeIndex;
  private RocksKv standbyItems;
  private RocksKv standbyIndex;
  private RocksKv referenceIndex;

  @BeforeTry
  void open() {
    activeItems = RocksKv.open("active-items");
    activeIndex = RocksKv.open("active-index");
    standbyItems = RocksKv.open("standby-items");
    standbyIndex = RocksKv.open("standby-index");
    referenceIndex = RocksKv.open("reference-index");
  }

  @AfterTry
  void close() {
    for (RocksKv r : List.of(activeItems, activeIndex, standbyItems, standbyIndex, referenceIndex)) {
      r.close();
    }
  }

  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas();
  }

  @Property(seed = "35", tries = 120)
  void theFollowedIndexIsTrustedAndAnswersAsARebuiltOne(@ForAll("workloads") List<Op> ops,
      @ForAll @IntRange(min = 1, max = 9) int batchSize, @ForAll @IntRange(min = 0, max = 100) int followFromPercent,
      @ForAll @IntRange(min = 0, max = 100) int reopenAtPercent) {
    List<KeyValue<Bytes, byte[]>> changelog = runActive(ops);
    List<List<ConsumerRecord<byte[], byte[]>>> batches = batches(changelog, batchSize);
    int followFrom = batches.size() * followFromPercent / 100;
    int reopenAt = followFrom + (batches.size() - followFrom) * reopenAtPercent / 100;

    RestoreFollower follower = null;
    for (int b = 0; b < batches.size(); b++) {
      if (b == followFrom) {
        follower = RestoreFollower.open(standbyItems.kv, standbyIndex.kv);
      } else if (b == reopenAt && follower != null && follower.vouch()) {
        // The standby closed in order and a later restore follows on from the index it vouched for.
        follower = RestoreFollower.open(standbyItems.kv, standbyIndex.kv);
        assertEquals(0, follower.rebuilt(), "an index vouched for is used as it is");
      }
      if (follower != null) {
        follower.beforeWrite(batches.get(b));
      }
      for (ConsumerRecord<byte[], byte[]> r : batches.get(b)) {
        standbyItems.kv.put(Bytes.wrap(r.key()), r.value());
      }
    }
    if (follower == null) {
      follower = RestoreFollower.open(standbyItems.kv, standbyIndex.kv); // it opened after the last batch
    }

    assertTrue(follower.vouch(), "a table with a generation is vouched for");
    PriorityStore followed = new PriorityStore(standbyItems.kv, standbyIndex.kv);
    assertTrue(followed.openIndex(), "the processor trusts the followed index");
    PriorityStore reference = new PriorityStore(standbyItems.kv, referenceIndex.kv);
    IndexRebuildTest.rebuilt(reference);
    assertEquals(answers(reference), answers(followed));
    reference.fairShares().forEach((k, e) -> assertTrue(followed.fairShares().entry(k)[2] >= e[2],
        "a followed slot is at least the rebuilt one (it saw the items' history): " + k));
  }

  // ---- the active side ----

  sealed interface Op permits Put, Delete, Flush, Restart {}

  /** Insert or replace the item of {@code slot} (its topic and group stay), as a record's transition. */
  record Put(int slot, int topic, ItemState state, int priority, long time, Long expiresAt, int variant) implements Op {}

  record Delete(int slot) implements Op {}

  /** A commit: the held item writes go to the table (and its changelog) in one batch. */
  record Flush() implements Op {}

  /** The task restarts on the same stores (an orderly close or a crash), with a new generation. */
  record Restart(boolean orderly) implements Op {}

  @Provide
  Arbitrary<List<Op>> workloads() {
    Arbitrary<Integer> slots = Arbitraries.integers().between(0, 19);
    Arbitrary<Long> times = Arbitraries.longs().between(0, 6);
    Arbitrary<Op> put = Combinators.combine(slots, Arbitraries.integers().between(0, TOPICS.size() - 1),
        Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(ItemState.READY)), Tuple.of(2, Arbitraries.of(ItemState.class))),
        Arbitraries.of(-1, 0, 0, 1), times,
        Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(null)), Tuple.of(1, times)),
        Arbitraries.integers().between(0, 47)).as(Put::new);
    Arbitrary<Op> op = Arbitraries.frequencyOf(
        Tuple.of(10, put),
        Tuple.of(3, slots.map(Delete::new)),
        Tuple.of(3, Arbitraries.just(new Flush())),
        Tuple.of(1, Arbitraries.of(true, false).map(Restart::new)));
    return op.list().ofMinSize(1).ofMaxSize(120);
  }

  /** Runs the workload on the active stores and returns its item table's changelog. */
  private List<KeyValue<Bytes, byte[]>> runActive(List<Op> ops) {
    LossyKv table = new LossyKv(activeItems.kv);
    PriorityStore active = started(table);
    Map<Long, StoredItem> items = new TreeMap<>();
    // A slot's item has an offset until it is deleted; the next item of the slot gets a new one, as
    // offsets of the items topic are never reused (an item never changes topic).
    Map<Integer, Long> offsets = new TreeMap<>();
    long[] next = {0};
    for (Op op : ops) {
      if (op instanceof Put p) {
        long offset = offsets.computeIfAbsent(p.slot(), k -> next[0]++);
        StoredItem before = items.get(offset);
        String[] nt = before == null ? TOPICS.get(p.topic())
            : new String[] {before.getItem().getNamespace(), before.getItem().getTopic()};
        StoredItem after = Items.stored(nt[0], nt[1], p.priority(), p.state(), p.time(), p.time() + 10,
            p.expiresAt(), new byte[] {(byte) p.slot()});
        after.setSidelined(p.variant() % 2 == 1);
        after.setSlot((p.variant() / 2) % 4);
        after.getItem().setGroupKey(before == null ? (p.variant() % 24 < 8 ? null : GROUPS.get(p.variant() % 2))
            : before.getItem().getGroupKey());
        after.setFlat(p.variant() >= 24); // in the ready index itself, or in its group's queue (decisions D48)
        active.transition(offset, before, after);
        items.put(offset, after);
        active.markChanges();
      } else if (op instanceof Delete d && offsets.containsKey(d.slot())) {
        long offset = offsets.remove(d.slot());
        active.transition(offset, items.remove(offset), null);
        active.markChanges();
      } else if (op instanceof Flush) {
        active.flushItemWrites();
      } else if (op instanceof Restart r) {
        active.flushItemWrites(); // Kafka Streams flushes before a close, clean or (under exactly-once) not at all: its commit did
        if (r.orderly()) {
          active.closeIndex();
        }
        active = started(table);
      }
    }
    active.flushItemWrites();
    return table.log;
  }

  private PriorityStore started(LossyKv table) {
    PriorityStore s = new PriorityStore(table, activeIndex.kv);
    IndexRebuildTest.rebuilt(s);
    s.holdItemWrites();
    s.startGeneration();
    return s;
  }

  private static List<List<ConsumerRecord<byte[], byte[]>>> batches(List<KeyValue<Bytes, byte[]>> changelog, int size) {
    List<List<ConsumerRecord<byte[], byte[]>>> out = new ArrayList<>();
    List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
    long offset = 0;
    for (KeyValue<Bytes, byte[]> kv : changelog) {
      batch.add(new ConsumerRecord<>("changelog", 0, offset++, kv.key.get(), kv.value));
      if (batch.size() == size) {
        out.add(batch);
        batch = new ArrayList<>();
      }
    }
    if (!batch.isEmpty()) {
      out.add(batch);
    }
    return out;
  }

  /** Every read the processor makes of the index, but fair queueing's slots (compared apart). */
  private static Map<String, Object> answers(PriorityStore s) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String[] nt : TOPICS) {
      String t = nt[0] + "/" + nt[1];
      out.put("ready " + t, s.readyHead(nt[0], nt[1], 1_000));
      out.put("oldest " + t, s.oldestReadyAt(nt[0], nt[1]));
      out.put("counts " + t, s.counts(nt[0], nt[1]));
      for (int priority = -1; priority <= 1; priority++) {
        for (String g : GROUPS) {
          out.put("group " + t + " " + priority + " " + g, s.groupHead(nt[0], nt[1], priority, g, 1_000));
        }
      }
    }
    for (String ns : List.of("n", "n2")) {
      out.put("topics " + ns, s.topics(ns));
      out.put("namespace " + ns, s.namespaceCounts(ns));
      out.put("overflow " + ns, s.overflowHead(ns, 1_000));
      for (String g : GROUPS) {
        out.put("leased " + ns + " " + g, s.groupLeased(ns, g));
      }
    }
    out.put("overflowing", List.copyOf(s.overflowNamespaces()));
    for (TimerKind kind : TimerKind.values()) {
      out.put("timers " + kind, s.dueTimers(kind, Long.MAX_VALUE, 1_000));
    }
    Map<String, List<Long>> fair = new TreeMap<>();
    s.fairShares().forEach((k, e) -> fair.put(k.toString(), List.of(e[0], e[1], e[3])));
    out.put("fair shares (ready, leased, queued)", fair);
    return out;
  }
}
