package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ordo.api.ItemId;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Acks;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Item;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Outcomes;
import dev.ordo.schema.ReEntry;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.ReadyEntry;
import dev.ordo.store.TopicCounts;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A seeded simulation: random enqueues (priorities, delays short and long), demands, acks, batch
 * acks, nacks (with delays, dead-letter requests), extends, releases, cancels, invalid commands and
 * the passing of time drive the {@link QueuePlanner} over a real {@link PriorityStore}, its effects
 * applied as the processor applies them, and every answer is checked against a simple model of the
 * queue: a map of items with their state. After every step: what was leased was ready and due, in
 * priority order, never more than asked; outcomes and dead letters are the model's; the store's
 * counts are the model's; no open demand waits while its topic has ready items. At the end every item
 * is accounted for exactly once (acked, cancelled or dead-lettered).
 */
class QueuePlannerSimulationTest {
  private static final String NS = "ns";
  private static final List<String> TOPICS = List.of("t", "u");
  private static final long LEASE_MS = 2_000;
  private static final int MAX_ATTEMPTS = 3;
  private static final long PARK_AFTER_MS = 3_000;
  private static final List<Requester> REQUESTERS = List.of(new Requester("a", 0), new Requester("b", 0));

  enum State { READY, DELAYED, PARKED, LEASED }

  /** The model's view of one item. */
  static final class M {
    final long offset;
    final String topic;
    final int priority;
    State state;
    long readyAt;
    int attempts;
    String leaseId;
    long leaseExpiresAt;

    M(long offset, String topic, int priority) {
      this.offset = offset;
      this.topic = topic;
      this.priority = priority;
    }

    String id() {
      return new ItemId(0, offset).toString();
    }

    ReadyEntry entry() {
      return new ReadyEntry(priority, readyAt, offset);
    }
  }

  /** A requester's open demand in the model: topic (or *) → items still wanted, and its expiry. */
  record Wanted(Map<String, Integer> remaining, long expiresAt) {}

  private SplittableRandom rnd;
  private PriorityStore store;
  private QueuePlanner planner;
  private long now = 1_000_000;
  private long nextOffset;
  private final Map<Long, M> model = new TreeMap<>();
  private final Map<String, Wanted> demands = new LinkedHashMap<>();
  private final Set<TopicRef> readyTopics = new HashSet<>();
  /** Re-entries in the tiers: offset → due time. */
  private final Map<Long, Long> inTiers = new HashMap<>();
  private final Map<String, String> ended = new HashMap<>();
  private final List<DeliveredItem> leasedThisStep = new ArrayList<>();
  private final Map<String, DeadLetterReason> expectedDeadLetters = new HashMap<>();

  /**
   * With a dispatch step ({@code dispatchStep} > 0) a record or timer run leases at most that many
   * items, and the continuations that follow (run here until none is pending, as the processor's
   * continuation would) serve the rest: the model, which serves every demand in full at once, must
   * agree all the same.
   */
  @ParameterizedTest(name = "seed {0}, dispatch step {1}")
  @CsvSource({"1, 0", "2, 0", "3, 0", "42, 0", "20261124, 0", "1, 2", "2, 3", "42, 1", "20261124, 4"})
  void plannerAgreesWithTheModel(long seed, int dispatchStep) {
    rnd = new SplittableRandom(seed);
    store = newStore();
    planner = new QueuePlanner(new QueuePlanner.Settings(new QueueDefaults(LEASE_MS, MAX_ATTEMPTS, null, PARK_AFTER_MS),
        List.of(Duration.ofSeconds(1), Duration.ofSeconds(2)), 10_000, 100_000, 0, true, 1).withDispatchStep(dispatchStep), 0,
        new SplittableRandom(seed));
    for (int step = 0; step < 3_000; step++) {
      int op = rnd.nextInt(100);
      if (op < 25) {
        enqueue();
      } else if (op < 35) {
        demand();
      } else if (op < 50) {
        ack();
      } else if (op < 55) {
        acks();
      } else if (op < 63) {
        nack();
      } else if (op < 67) {
        extend();
      } else if (op < 71) {
        release();
      } else if (op < 74) {
        cancel();
      } else if (op < 76) {
        invalid();
      } else {
        advance(rnd.nextLong(0, 700));
      }
      checkStep("step " + step + " (op " + op + ")");
    }
    drain();
    assertTrue(model.isEmpty(), "drained: " + model.size() + " items left");
    assertEquals(nextOffset, ended.size(), "every item ended exactly once");
    for (String topic : TOPICS) {
      assertEquals(0, store.counts(NS, topic).total(), "the store is empty too");
    }
  }

  // ---- operations ----

  private void enqueue() {
    long offset = nextOffset++;
    String topic = TOPICS.get(rnd.nextInt(TOPICS.size()));
    int priority = rnd.nextInt(4);
    long delay = switch (rnd.nextInt(6)) {
      case 0 -> rnd.nextLong(1, 1_000);
      case 1 -> rnd.nextLong(PARK_AFTER_MS, 8_000);
      default -> 0;
    };
    Item item = Item.newBuilder().setNamespace(NS).setTopic(topic).setPriority(priority)
        .setPayload(ByteBuffer.wrap(new byte[] {1})).setDeliverAfter(delay == 0 ? null : now + delay).build();
    M m = new M(offset, topic, priority);
    m.readyAt = delay == 0 ? now : now + delay;
    m.state = delay == 0 ? State.READY : delay >= PARK_AFTER_MS ? State.PARKED : State.DELAYED;
    model.put(offset, m);
    Effects e = planner.onItem(offset, now, item, store, now);
    if (m.state == State.PARKED) {
      assertEquals(1, e.parks().size(), "a long delay parks the item in a tier");
      assertEquals(Duration.ofSeconds(2), e.parks().get(0).tier(), "the longest tier within the wait");
    }
    applyAndDispatch(e);
  }

  private void demand() {
    Requester r = REQUESTERS.get(rnd.nextInt(REQUESTERS.size()));
    Map<String, Integer> topics = new HashMap<>();
    switch (rnd.nextInt(3)) {
      case 0 -> topics.put("t", 1 + rnd.nextInt(5));
      case 1 -> topics.put("*", 1 + rnd.nextInt(5));
      default -> {
        topics.put("u", 1 + rnd.nextInt(3));
        topics.put("*", 1 + rnd.nextInt(3));
      }
    }
    long validFor = 1_000 + rnd.nextLong(5_000);
    demands.put(r.getId(), new Wanted(new HashMap<>(topics), now + validFor));
    Effects e = planner.onCommand(command(r, new Demand(NS, topics, validFor, true, false, false, -1L, 0L)), store, now);
    applyAndDispatch(e);
  }

  private void ack() {
    M m = pickAny();
    if (m == null) {
      return;
    }
    boolean stale = rnd.nextInt(10) == 0;
    String leaseId = stale || m.leaseId == null ? "a0-bad" : m.leaseId;
    OutcomeResult expected = expectLease(m, leaseId);
    Requester r = REQUESTERS.get(0);
    Effects e = planner.onCommand(command(r, new Ack(m.id(), leaseId)), store, now);
    if (expected == OutcomeResult.APPLIED) {
      end(m, "acked");
    }
    assertEquals(expected, single(e).getResult(), "ack of " + m.id());
    applyAndDispatch(e);
  }

  /** A batch of acks: some leased items, one of them twice, and an ID of another partition. */
  private void acks() {
    List<M> leased = model.values().stream().filter(x -> x.state == State.LEASED).toList();
    if (leased.isEmpty()) {
      return;
    }
    List<Ack> list = new ArrayList<>();
    List<OutcomeResult> expected = new ArrayList<>();
    Set<Long> ackedHere = new HashSet<>();
    for (int i = 0; i < 1 + rnd.nextInt(4); i++) {
      M m = leased.get(rnd.nextInt(leased.size()));
      list.add(new Ack(m.id(), m.leaseId));
      expected.add(ackedHere.add(m.offset) ? OutcomeResult.APPLIED : OutcomeResult.UNKNOWN_ITEM);
    }
    list.add(new Ack("1-5", "a1-x"));
    expected.add(OutcomeResult.INVALID);
    Effects e = planner.onCommand(command(REQUESTERS.get(1), new Acks(list)), store, now);
    assertNull(e.refusal(), "a bad ack in a batch refuses only itself");
    assertEquals(1, e.answers().size());
    List<Outcome> outcomes = ((Outcomes) e.answers().get(0).body()).getOutcomes();
    assertEquals(expected, outcomes.stream().map(Outcome::getResult).toList());
    for (long offset : ackedHere) {
      end(model.get(offset), "acked");
    }
    applyAndDispatch(e);
  }

  private void nack() {
    M m = pickLeased();
    if (m == null) {
      return;
    }
    long delay = switch (rnd.nextInt(4)) {
      case 0 -> 300;
      case 1 -> PARK_AFTER_MS + rnd.nextLong(3_000);
      default -> 0;
    };
    boolean deadLetter = rnd.nextInt(10) == 0;
    Effects e = planner.onCommand(command(REQUESTERS.get(0), new Nack(m.id(), m.leaseId, delay, null, "boom", deadLetter)),
        store, now);
    Outcome o = single(e);
    assertEquals(OutcomeResult.APPLIED, o.getResult());
    DeadLetterReason reason = deadLetter ? DeadLetterReason.REJECTED
        : m.attempts >= MAX_ATTEMPTS ? DeadLetterReason.MAX_ATTEMPTS : null;
    assertEquals(reason, o.getDeadLetterReason(), "the outcome says whether the nack dead-lettered " + m.id());
    if (reason != null) {
      expectedDeadLetters.put(m.id(), reason);
      end(m, "dead-lettered");
    } else {
      clearLease(m);
      if (delay == 0) {
        m.state = State.READY;
      } else {
        m.readyAt = now + delay;
        m.state = delay >= PARK_AFTER_MS ? State.PARKED : State.DELAYED;
      }
    }
    applyAndDispatch(e);
  }

  private void extend() {
    M m = pickLeased();
    if (m == null) {
      return;
    }
    Effects e = planner.onCommand(command(REQUESTERS.get(0), new Extend(m.id(), m.leaseId, LEASE_MS)), store, now);
    Outcome o = single(e);
    assertEquals(OutcomeResult.APPLIED, o.getResult());
    m.leaseExpiresAt = now + LEASE_MS;
    assertEquals(m.leaseExpiresAt, o.getLeaseExpiresAt());
    applyAndDispatch(e);
  }

  private void release() {
    M m = pickLeased();
    if (m == null) {
      return;
    }
    Effects e = planner.onCommand(command(REQUESTERS.get(0), new Release(m.id(), m.leaseId, null)), store, now);
    assertEquals(OutcomeResult.APPLIED, single(e).getResult());
    clearLease(m);
    m.state = State.READY;
    m.attempts--;
    applyAndDispatch(e);
  }

  private void cancel() {
    M m = pickAny();
    String id = m != null ? m.id() : new ItemId(0, nextOffset + 1000).toString();
    Effects e = planner.onCommand(command(REQUESTERS.get(1), new Cancel(id)), store, now);
    assertEquals(m != null ? OutcomeResult.APPLIED : OutcomeResult.UNKNOWN_ITEM, single(e).getResult());
    if (m != null) {
      end(m, "cancelled");
      inTiers.remove(m.offset);
    }
    applyAndDispatch(e);
  }

  /** A refused command changes nothing and is answered INVALID naming the field. */
  private void invalid() {
    M m = pickLeased();
    Command bad = m != null && rnd.nextBoolean()
        ? command(REQUESTERS.get(0), new Nack(m.id(), m.leaseId, -5L, null, null, false))
        : command(REQUESTERS.get(0), new Demand(NS, Map.of("t", 1), 0L, true, false, false, -1L, 0L));
    Effects e = planner.onCommand(bad, store, now);
    assertNotNull(e.refusal(), "refused");
    assertTrue(e.changes().isEmpty() && e.parks().isEmpty() && e.deadLetters().isEmpty(), "nothing changes");
    Outcome o = single(e);
    assertEquals(OutcomeResult.INVALID, o.getResult());
    assertTrue(o.getDetail().contains(bad.getBody() instanceof Nack ? "delayMs" : "validForMs"), o.getDetail());
    applyAndDispatch(e);
  }

  /** Time passes: a timer run, then the re-entries whose time came. */
  private void advance(long ms) {
    now += ms;
    demands.values().removeIf(w -> w.expiresAt() <= now);
    for (M m : model.values()) {
      if (m.state == State.DELAYED && m.readyAt <= now) {
        m.state = State.READY;
      }
    }
    for (M m : new ArrayList<>(model.values())) {
      if (m.state == State.LEASED && m.leaseExpiresAt <= now) {
        if (m.attempts >= MAX_ATTEMPTS) {
          expectedDeadLetters.put(m.id(), DeadLetterReason.MAX_ATTEMPTS);
          end(m, "dead-lettered");
        } else {
          clearLease(m);
          m.state = State.READY;
        }
      }
    }
    applyAndDispatch(planner.onTimers(store, now));
    for (Map.Entry<Long, Long> p : new ArrayList<>(inTiers.entrySet())) {
      if (p.getValue() <= now) {
        inTiers.remove(p.getKey());
        M m = model.get(p.getKey());
        if (m != null && m.state == State.PARKED && m.readyAt == p.getValue()) {
          m.state = State.READY;
        }
        Command reEntry = Command.newBuilder().setRequester(null).setSentAt(now)
            .setBody(new ReEntry(new ItemId(0, p.getKey()).toString(), p.getValue())).build();
        applyAndDispatch(planner.onCommand(reEntry, store, now));
      }
    }
  }

  /** Time passes and a requester takes and acks everything until the queue is empty. */
  private void drain() {
    for (int round = 0; round < 200 && !model.isEmpty(); round++) {
      advance(1_000);
      demands.put("a", new Wanted(new HashMap<>(Map.of("*", 10_000)), now + 60_000));
      applyAndDispatch(planner.onCommand(command(REQUESTERS.get(0), new Demand(NS, Map.of("*", 10_000), 60_000L, true, false, false, -1L, 0L)),
          store, now));
      checkStep("drain " + round);
      for (M m : new ArrayList<>(model.values())) {
        if (m.state == State.LEASED) {
          Effects e = planner.onCommand(command(REQUESTERS.get(0), new Ack(m.id(), m.leaseId)), store, now);
          assertEquals(OutcomeResult.APPLIED, single(e).getResult());
          end(m, "acked");
          applyAndDispatch(e);
        }
      }
      checkStep("drain acks " + round);
    }
  }

  // ---- applying, as the processor does, and checking ----

  private void applyAndDispatch(Effects effects) {
    applyAndDispatchOnce(effects);
    for (int run = 0; planner.dispatchPending(); run++) {
      assertTrue(run < 10_000, "a dispatch still pending after " + run + " timer runs");
      applyAndDispatchOnce(planner.continueDispatch(store, now));
    }
  }

  private void applyAndDispatchOnce(Effects effects) {
    apply(effects);
    if (!readyTopics.isEmpty()) {
      apply(planner.dispatch(readyTopics, store, now));
    }
    store.markChanges();
    checkOrder();
  }

  private void apply(Effects effects) {
    for (Effects.Change c : effects.changes()) {
      store.transition(c.offset(), c.before(), c.after());
    }
    readyTopics.addAll(effects.readyTopics());
    for (Effects.Park p : effects.parks()) {
      inTiers.put(p.offset(), p.dueAt());
      assertTrue(p.tier().toMillis() <= p.dueAt() - now, "a tier never outlasts the wait");
    }
    for (Effects.DeadLetter d : effects.deadLetters()) {
      String id = new ItemId(0, d.offset()).toString();
      assertEquals(expectedDeadLetters.remove(id), d.reason(), "dead letter of " + id);
    }
    for (Effects.Leased l : effects.leased()) {
      for (DeliveredItem item : l.items()) {
        M m = model.get(ItemId.parse(item.getItemId()).offset());
        assertNotNull(m, "leased an item the model no longer has: " + item.getItemId());
        assertEquals(State.READY, m.state, "leased " + item.getItemId() + " in state " + m.state);
        assertTrue(m.readyAt <= now, "leased " + item.getItemId() + " before its time");
        take(l.requester().getId(), m.topic, item.getItemId());
        m.state = State.LEASED;
        m.attempts++;
        m.leaseId = item.getLeaseId();
        m.leaseExpiresAt = now + LEASE_MS;
        assertEquals(m.attempts, item.getAttempt());
        assertEquals(m.leaseExpiresAt, item.getLeaseExpiresAt());
        leasedThisStep.add(item);
      }
    }
  }

  /** One item of {@code topic} handed to {@code requester}: from its count for the topic first, else from its any-topic count. */
  private void take(String requester, String topic, String itemId) {
    Wanted w = demands.get(requester);
    assertNotNull(w, itemId + " leased to " + requester + ", who has no open demand");
    String key = w.remaining().getOrDefault(topic, 0) > 0 ? topic : "*";
    int left = w.remaining().getOrDefault(key, 0);
    assertTrue(left > 0, itemId + " leased to " + requester + " beyond what it asked");
    if (left == 1) {
      w.remaining().remove(key);
    } else {
      w.remaining().put(key, left - 1);
    }
    if (w.remaining().isEmpty()) {
      demands.remove(requester);
    }
  }

  private void checkStep(String where) {
    assertTrue(expectedDeadLetters.isEmpty(), where + ": dead letters the planner did not write: " + expectedDeadLetters);
    for (String topic : TOPICS) {
      List<M> ready = model.values().stream().filter(m -> m.topic.equals(topic) && m.state == State.READY).toList();
      long delayed = model.values().stream().filter(m -> m.topic.equals(topic) && m.state == State.DELAYED).count();
      long parked = model.values().stream().filter(m -> m.topic.equals(topic) && m.state == State.PARKED).count();
      long leased = model.values().stream().filter(m -> m.topic.equals(topic) && m.state == State.LEASED).count();
      TopicCounts c = store.counts(NS, topic);
      assertEquals(List.of((long) ready.size(), delayed, parked, leased), List.of(c.ready(), c.delayed(), c.parked(), c.leased()),
          where + ": store counts of " + topic + " (ready, delayed, parked, leased)");
      // Dispatch: no open demand waits while its topic has ready items.
      if (!ready.isEmpty()) {
        for (Map.Entry<String, Wanted> d : demands.entrySet()) {
          Map<String, Integer> rem = d.getValue().remaining();
          assertTrue(rem.getOrDefault(topic, 0) == 0 && rem.getOrDefault("*", 0) == 0,
              where + ": " + d.getKey() + " waits for " + rem + " while " + ready.size() + " items of " + topic + " are ready");
        }
      }
    }
  }

  /**
   * Priority order: whatever stays ready is not ahead of anything leased by one record or timer run
   * and the dispatch that followed it (which make items ready before they lease any).
   */
  private void checkOrder() {
    for (DeliveredItem l : leasedThisStep) {
      M leasedItem = model.get(ItemId.parse(l.getItemId()).offset());
      if (leasedItem == null) {
        continue;
      }
      for (M r : model.values()) {
        if (r.state == State.READY && r.topic.equals(l.getTopic()) && r.entry().compareTo(leasedItem.entry()) < 0) {
          fail(r.id() + " " + r.entry() + " stayed ready while " + l.getItemId() + " " + leasedItem.entry() + " was leased");
        }
      }
    }
    leasedThisStep.clear();
  }

  // ---- helpers ----

  private OutcomeResult expectLease(M m, String leaseId) {
    if (m.state != State.LEASED || !m.leaseId.equals(leaseId)) {
      return OutcomeResult.STALE_LEASE;
    }
    return OutcomeResult.APPLIED;
  }

  private void end(M m, String how) {
    model.remove(m.offset);
    assertNull(ended.put(m.id(), how), m.id() + " ended twice");
  }

  private static void clearLease(M m) {
    m.leaseId = null;
    m.leaseExpiresAt = 0;
  }

  private M pickAny() {
    if (model.isEmpty()) {
      return null;
    }
    List<M> all = new ArrayList<>(model.values());
    return all.get(rnd.nextInt(all.size()));
  }

  private M pickLeased() {
    List<M> leased = model.values().stream().filter(x -> x.state == State.LEASED).toList();
    return leased.isEmpty() ? null : leased.get(rnd.nextInt(leased.size()));
  }

  private static Outcome single(Effects e) {
    assertEquals(1, e.answers().size(), "one answer");
    return (Outcome) e.answers().get(0).body();
  }

  private Command command(Requester r, Object body) {
    return Command.newBuilder().setRequester(r).setSentAt(now).setBody(body).setUrgent(false).build();
  }

  static PriorityStore newStore() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ordo-planner-simulation");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props);
    List<KeyValueStore<Bytes, byte[]>> kvs = new ArrayList<>();
    for (String name : new String[] {PriorityStore.STORE_NAME, PriorityStore.INDEX_STORE_NAME}) {
      KeyValueStore<Bytes, byte[]> kv = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name),
          Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
      kv.init(context.getStateStoreContext(), kv);
      kvs.add(kv);
    }
    PriorityStore store = new PriorityStore(kvs.get(0), kvs.get(1));
    if (!store.openIndex()) {
      while (store.rebuilding()) {
        store.rebuildStep(1_000);
      }
    }
    store.startGeneration();
    return store;
  }
}
