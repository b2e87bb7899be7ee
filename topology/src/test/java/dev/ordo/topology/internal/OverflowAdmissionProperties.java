package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ordo.api.ItemId;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Rate;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.ReadyEntry;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.QueueMetrics;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Admission from OVERFLOW through the pure {@link QueuePlanner} over a real store, on generated
 * workloads (issue 13: "OVERFLOW releases in enqueue order; no item is lost or duplicated across
 * OVERFLOW → READY"). Two namespaces have a policy with an admission rate and/or a backlog limit
 * ({@code na} always a rate), a third none; items of three topics and four priorities arrive (one at a
 * time or in batches, some delayed, some with a time to live) at times the workload sets, time passes
 * with or without a timer run, workers ask for items and ack them, items are cancelled, and the other
 * partitions report load (which shrinks this partition's share). Leases outlast the run, so a delivery
 * is a delivery: nothing comes back by a lease expiry.
 */
class OverflowAdmissionProperties {
  private static final List<String> LIMITED = List.of("na", "nb");
  private static final List<String> NAMESPACES = List.of("na", "nb", "free");
  private static final List<String> TOPICS = List.of("t", "u", "v");
  private static final long T0 = 1_000_000;
  private static final long LEASE_MS = 24 * 3_600_000L;
  private static final int DRAIN_ROUNDS = 2_000;

  /** A namespace's admission limits: a rate (null: none) with its burst, and a backlog limit (null: none). */
  record Limits(Double perSecond, long burst, Long maxBacklog) {
    boolean limits() {
      return perSecond != null || maxBacklog != null;
    }

    NamespacePolicy policy(String namespace) {
      return NamespacePolicy.newBuilder().setNamespace(namespace)
          .setAdmissionRate(perSecond == null ? null : new Rate(perSecond, burst)).setMaxBacklog(maxBacklog)
          .setUpdatedAt(0).build();
    }
  }

  sealed interface Op permits Arrive, Tick, Want, AckOne, CancelOne, OthersReport {}

  /** {@code count} items arrive now (topics in turn from {@code topic}). */
  record Arrive(int ns, int topic, int priority, int count, long delayMs, Long ttlMs) implements Op {}

  /** Time passes; a timer run at the new time, or none (the next arrivals come first). */
  record Tick(long ms, boolean timers) implements Op {}

  /** The namespace's worker asks for {@code count} items of a topic ({@code topic} -1: any). */
  record Want(int ns, int topic, int count, long validForMs) implements Op {}

  /** A held lease is acked (the {@code pick}-th, modulo). */
  record AckOne(int pick) implements Op {}

  /** A live item is cancelled (the {@code pick}-th, modulo). */
  record CancelOne(int pick) implements Op {}

  /** The other partitions report this (partitions -1: nothing reported). */
  record OthersReport(long waiting, double demand, int partitions) implements Op {}

  @Provide
  Arbitrary<List<Limits>> limits() {
    Arbitrary<Double> rate = Arbitraries.doubles().between(0.5, 10).ofScale(2);
    Arbitrary<Long> burst = Arbitraries.longs().between(1, 8);
    Arbitrary<Long> backlog = Arbitraries.longs().between(2, 30).injectNull(0.6);
    Arbitrary<Limits> withRate = Combinators.combine(rate, burst, backlog).as(Limits::new);
    Arbitrary<Limits> any = Combinators.combine(rate.injectNull(0.3), burst, backlog).as(Limits::new)
        .filter(Limits::limits);
    return Combinators.combine(withRate, any).as(List::of);
  }

  @Provide
  Arbitrary<List<Op>> workloads() {
    Arbitrary<Arrive> arrive = Combinators.combine(
        Arbitraries.frequency(Tuple.of(4, 0), Tuple.of(3, 1), Tuple.of(1, 2)),
        Arbitraries.integers().between(0, TOPICS.size() - 1),
        Arbitraries.integers().between(0, 3),
        Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just(1)), Tuple.of(1, Arbitraries.integers().between(2, 15))),
        Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(0L)), Tuple.of(1, Arbitraries.longs().between(1, 3_000))),
        Arbitraries.longs().between(100, 5_000).injectNull(0.8)).as(Arrive::new);
    Arbitrary<Tick> tick = Combinators.combine(
        Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.longs().between(0, 40)), Tuple.of(2, Arbitraries.longs().between(41, 1_500))),
        Arbitraries.frequency(Tuple.of(5, true), Tuple.of(1, false))).as(Tick::new);
    Arbitrary<Want> want = Combinators.combine(Arbitraries.integers().between(0, 2),
        Arbitraries.integers().between(-1, TOPICS.size() - 1), Arbitraries.integers().between(1, 10),
        Arbitraries.longs().between(50, 5_000)).as(Want::new);
    Arbitrary<AckOne> ack = Arbitraries.integers().between(0, 10_000).map(AckOne::new);
    Arbitrary<CancelOne> cancel = Arbitraries.integers().between(0, 10_000).map(CancelOne::new);
    Arbitrary<OthersReport> others = Combinators.combine(Arbitraries.longs().between(0, 20),
        Arbitraries.doubles().between(0, 50), Arbitraries.integers().between(-1, 3)).as(OthersReport::new);
    return Arbitraries.<Op>frequencyOf(Tuple.of(35, arrive), Tuple.of(30, tick), Tuple.of(12, want), Tuple.of(15, ack),
        Tuple.of(3, cancel), Tuple.of(5, others)).list().ofMinSize(10).ofMaxSize(300)
        .withSizeDistribution(RandomDistribution.uniform());
  }

  /**
   * No item is lost or duplicated across OVERFLOW → READY. After every record, timer run and dispatch:
   * every change starts from the state the item is in and is a legal move (only an arrival leads into
   * OVERFLOW; OVERFLOW leads only to READY or DELAYED, or out by TTL or cancel); an item leaves the
   * store only by an ack, a cancel or a TTL dead letter that was due; the store holds each changed item
   * in the state the plan gave it and, per (namespace, topic), as many items in each state as the test
   * counts (and, every 10th step, its overflow and ready indexes hold exactly the OVERFLOW and READY
   * items, oldest first); the OVERFLOWED and ADMITTED counts match the moves. In the end (time passes with timer runs, a worker takes and acks
   * everything): every item ended; the items that left OVERFLOW for READY/DELAYED are, as a multiset,
   * exactly the items that went to OVERFLOW and did not end there; every acked item was delivered
   * exactly once, and none twice.
   */
  @Property(tries = 100, seed = "13")
  void noItemIsLostOrDuplicatedAcrossOverflowToReady(@ForAll("limits") List<Limits> limits,
      @ForAll("workloads") List<Op> ops) {
    Sim sim = new Sim(limits, true);
    sim.run(ops);
    sim.drain();
    long overflowed = sim.items.stream().filter(t -> t.overflowed).count();
    List<Long> leftOverflow = new ArrayList<>();
    for (Admit a : sim.admits) {
      if (a.fromOverflow()) {
        leftOverflow.add(a.offset());
      }
    }
    leftOverflow.sort(null);
    List<Long> expected = new ArrayList<>();
    for (Tracked t : sim.items) {
      assertTrue(t.arrived, t + " never arrived");
      assertNotNull(t.end, t + " is still " + t.state + " after the drain");
      if (t.overflowed && t.endedFrom != ItemState.OVERFLOW) {
        expected.add(t.offset);
      }
      if ("acked".equals(t.end)) {
        assertEquals(1, t.delivered, t + " acked after " + t.delivered + " deliveries");
        assertEquals(1, t.acked, t + " acked " + t.acked + " times");
      } else {
        assertTrue(t.delivered <= 1, t + " delivered " + t.delivered + " times");
        assertEquals(0, t.acked, t + " ended by " + t.end + " yet acked");
      }
    }
    assertEquals(expected, leftOverflow, "the items that left OVERFLOW (multiset) are the items that went there and did not end there");
    assertEquals(overflowed, sim.overflowedMetric, "OVERFLOWED counts the items that went to OVERFLOW");
    assertEquals(leftOverflow.size(), sim.admittedMetric, "ADMITTED counts the items that left OVERFLOW");
    for (String ns : NAMESPACES) {
      assertEquals(0, sim.store.namespaceCounts(ns).total(), ns + ": the store is empty");
    }
    assertTrue(sim.store.overflowNamespaces().isEmpty(), "no namespace left overflowing");
    Statistics.label("items went to OVERFLOW").collect(overflowed > 0)
        .coverage(c -> c.check(true).percentage(p -> p >= 80));
  }

  /**
   * OVERFLOW releases in arrival order, per namespace (docs/queue.md, "Admission rate and OVERFLOW":
   * the oldest OVERFLOW items of each namespace, in the order they arrived on the partition; while a
   * namespace has items in OVERFLOW, its new arrivals join the end of the line even if a token is
   * free). Checked at every admission, whether of an arrival or from OVERFLOW: no older item of the
   * namespace is still in OVERFLOW, and no younger item of the namespace was admitted before it. So
   * within each (namespace, topic), too, admissions follow enqueue order (checked on its own).
   */
  @Property(tries = 100, seed = "14")
  void overflowReleasesInArrivalOrderPerNamespace(@ForAll("limits") List<Limits> limits,
      @ForAll("workloads") List<Op> ops) {
    Sim sim = new Sim(limits, false);
    sim.run(ops);
    sim.drain();
    assertEquals(List.of(), sim.orderViolations, "admissions out of arrival order");
    Map<List<String>, Long> last = new HashMap<>();
    for (Admit a : sim.admits) {
      Long before = last.put(List.of(a.ns(), a.topic()), a.offset());
      assertTrue(before == null || before < a.offset(),
          a + " admitted after " + before + " of the same (namespace, topic)");
    }
    long waitedBehind = sim.admits.stream().filter(Admit::fromOverflow).count();
    Statistics.label("items admitted from OVERFLOW").collect(waitedBehind > 0)
        .coverage(c -> c.check(true).percentage(p -> p >= 80));
  }

  /**
   * The rate bound on one partition: over any window [t1, t2] of the run, the items of a namespace
   * admitted (at arrival or from OVERFLOW) are at most {@code burst + perSecond × (t2 − t1)}. This
   * partition's share of the rate and burst (Admission.share, decisions D22) is in (0, 1] whatever the
   * other partitions report (their reports are generated here), so it can only lower that: the 2× of
   * D22 is the sum of the shares over partitions, not one partition's.
   */
  @Property(tries = 100, seed = "15")
  void admissionsStayWithinBurstPlusRateTimesTime(@ForAll("limits") List<Limits> limits,
      @ForAll("workloads") List<Op> ops) {
    Sim sim = new Sim(limits, false);
    sim.run(ops);
    sim.drain();
    boolean reached = false;
    for (int i = 0; i < LIMITED.size(); i++) {
      Limits l = limits.get(i);
      if (l.perSecond() == null) {
        continue;
      }
      String ns = LIMITED.get(i);
      List<Long> times = new ArrayList<>();
      List<Long> counts = new ArrayList<>();
      for (Admit a : sim.admits) {
        if (!a.ns().equals(ns)) {
          continue;
        }
        if (!times.isEmpty() && times.get(times.size() - 1) == a.at()) {
          counts.set(counts.size() - 1, counts.get(counts.size() - 1) + 1);
        } else {
          times.add(a.at());
          counts.add(1L);
        }
      }
      long[] prefix = new long[counts.size() + 1];
      for (int k = 0; k < counts.size(); k++) {
        prefix[k + 1] = prefix[k] + counts.get(k);
      }
      // The window [t_a, t_b] admits prefix[b+1] - prefix[a]; for each end b, the worst start a maximises
      // perSecond × t_a - prefix[a] (over a <= b): one pass instead of every pair.
      double best = Double.NEGATIVE_INFINITY;
      int worst = 0;
      for (int b = 0; b < times.size(); b++) {
        double startTerm = l.perSecond() * (times.get(b) - T0) / 1000.0 - prefix[b];
        if (startTerm > best) {
          best = startTerm;
          worst = b;
        }
        long n = prefix[b + 1] - prefix[worst];
        long elapsed = times.get(b) - times.get(worst);
        double bound = l.burst() + l.perSecond() * elapsed / 1000.0;
        if (n > bound + 1e-6) {
          fail(ns + ": " + n + " admitted from +" + (times.get(worst) - T0) + " to +" + (times.get(b) - T0)
              + " ms, over burst " + l.burst() + " + " + l.perSecond() + "/s × " + elapsed + " ms = " + bound);
        }
        reached |= n + 1 > bound; // within one item of the bound
      }
    }
    // The bound is tight in most runs (a partition with overflow uses its whole rate), so a looser bucket fails.
    Statistics.label("bound reached within one item").collect(reached)
        .coverage(c -> c.check(true).percentage(p -> p >= 80));
  }

  /** One admission: of an arrival, or from OVERFLOW, at time {@code at}. */
  record Admit(String ns, String topic, long offset, long at, boolean fromOverflow) {}

  /** The test's view of one item, kept after it ended. */
  static final class Tracked {
    final long offset;
    final String ns;
    final String topic;
    final Long ttlMs;
    final long enqueuedAt;
    boolean arrived;
    ItemState state;
    String end;
    ItemState endedFrom;
    boolean overflowed;
    int delivered;
    int acked;

    Tracked(long offset, String ns, String topic, Long ttlMs, long enqueuedAt) {
      this.offset = offset;
      this.ns = ns;
      this.topic = topic;
      this.ttlMs = ttlMs;
      this.enqueuedAt = enqueuedAt;
    }

    @Override
    public String toString() {
      return "item " + offset + " (" + ns + "/" + topic + ")";
    }
  }

  /** One partition: the planner over a store, its effects applied as the processor applies them. */
  static final class Sim {
    final Map<String, Limits> limits = new HashMap<>();
    /** Whether the store is audited after every step (the drain audits after each round). */
    boolean audit;
    final PriorityStore store = QueuePlannerSimulationTest.newStore();
    final QueuePlanner planner;
    NamespaceLoad.Load others = NamespaceLoad.Load.NONE;
    long now = T0;
    final Set<TopicRef> readyTopics = new HashSet<>();
    final List<Tracked> items = new ArrayList<>();
    final Map<String, TreeSet<Long>> overflowing = new HashMap<>();
    final List<DeliveredItem> held = new ArrayList<>();
    final List<Admit> admits = new ArrayList<>();
    final Map<String, Long> lastAdmitted = new HashMap<>();
    final List<String> orderViolations = new ArrayList<>();
    final Set<Long> touched = new HashSet<>();
    /** The items by (namespace, topic) and state, and the READY ones, as the plans moved them. */
    final Map<List<String>, long[]> byTopic = new HashMap<>();
    final Map<List<String>, Set<Long>> readyByTopic = new HashMap<>();
    int audits;
    long overflowedMetric;
    long admittedMetric;

    Sim(List<Limits> limits, boolean audit) {
      this.audit = audit;
      Map<String, NamespacePolicy> policies = new HashMap<>();
      for (int i = 0; i < LIMITED.size(); i++) {
        this.limits.put(LIMITED.get(i), limits.get(i));
        policies.put(LIMITED.get(i), limits.get(i).policy(LIMITED.get(i)));
      }
      for (String ns : NAMESPACES) {
        overflowing.put(ns, new TreeSet<>());
      }
      planner = new QueuePlanner(new QueuePlanner.Settings(new QueueDefaults(LEASE_MS, 5, null, 600_000),
          List.of(Duration.ofMinutes(10)), 10_000, 100_000, 0, true, 1), 0, new SplittableRandom(7),
          policies::get, (ns, partition, at) -> others);
    }

    void run(List<Op> ops) {
      int step = 0;
      for (Op op : ops) {
        String where = "step " + step++ + " " + op + " at +" + (now - T0) + " ms";
        if (op instanceof Arrive a) {
          arrive(a, where);
        } else if (op instanceof Tick t) {
          now += t.ms();
          if (t.timers()) {
            step(planner.onTimers(store, now), Map.of(), where);
          }
        } else if (op instanceof Want w) {
          String ns = NAMESPACES.get(w.ns());
          String key = w.topic() < 0 ? "*" : TOPICS.get(w.topic());
          step(planner.onCommand(command(ns, new Demand(ns, Map.of(key, w.count()), w.validForMs(), true, false, false, -1L, 0L)), store, now),
              Map.of(), where);
        } else if (op instanceof AckOne a) {
          if (!held.isEmpty()) {
            ack(held.remove(a.pick() % held.size()), where);
          }
        } else if (op instanceof CancelOne c) {
          List<Tracked> live = items.stream().filter(t -> t.end == null).toList();
          if (!live.isEmpty()) {
            cancel(live.get(c.pick() % live.size()), where);
          }
        } else if (op instanceof OthersReport r) {
          others = r.partitions() < 0 ? NamespaceLoad.Load.NONE
              : new NamespaceLoad.Load(r.waiting(), r.demand(), 0, r.partitions());
        }
      }
    }

    /** Time passes with timer runs, the other partitions go quiet, and each namespace's worker takes and acks everything. */
    void drain() {
      others = NamespaceLoad.Load.NONE;
      boolean auditRounds = audit;
      audit = false;
      for (String ns : NAMESPACES) { // open until the drain ends: served as items become ready
        step(planner.onCommand(command(ns, new Demand(ns, Map.of("*", 1_000_000), (DRAIN_ROUNDS + 1) * 1_000L, true, false, false, -1L, 0L)),
            store, now), Map.of(), "drain demand of " + ns);
      }
      while (!held.isEmpty()) {
        ack(held.remove(0), "drain");
      }
      for (int round = 0; round < DRAIN_ROUNDS && items.stream().anyMatch(t -> t.end == null); round++) {
        now += 1_000;
        String where = "drain " + round + " at +" + (now - T0) + " ms";
        step(planner.onTimers(store, now), Map.of(), where);
        while (!held.isEmpty()) {
          ack(held.remove(0), where);
        }
        if (auditRounds) {
          audit(where, round % 10 == 0); // the items changed in the round
          touched.clear();
        }
      }
      if (auditRounds) {
        audit("drained", true);
      }
      assertFalse(items.stream().anyMatch(t -> t.end == null), "drained in " + DRAIN_ROUNDS + " s");
    }

    private void arrive(Arrive a, String where) {
      String ns = NAMESPACES.get(a.ns());
      for (int k = 0; k < a.count(); k++) {
        String topic = TOPICS.get((a.topic() + k) % TOPICS.size());
        long offset = items.size();
        Item item = Item.newBuilder().setNamespace(ns).setTopic(topic).setPriority(a.priority())
            .setPayload(ByteBuffer.wrap(new byte[] {1})).setDeliverAfter(a.delayMs() == 0 ? null : now + a.delayMs())
            .setTtlMs(a.ttlMs()).build();
        items.add(new Tracked(offset, ns, topic, a.ttlMs(), now));
        step(planner.onItem(offset, now, item, store, now), Map.of(), where + ", arrival of " + offset);
      }
    }

    private void ack(DeliveredItem d, String where) {
      Tracked t = items.get((int) ItemId.parse(d.getItemId()).offset());
      OutcomeResult expected = t.state == ItemState.LEASED ? OutcomeResult.APPLIED : OutcomeResult.UNKNOWN_ITEM;
      Effects e = planner.onCommand(command(t.ns, new Ack(d.getItemId(), d.getLeaseId())), store, now);
      assertEquals(expected, single(e).getResult(), where + ": ack of " + t + " in state " + t.state);
      if (expected == OutcomeResult.APPLIED) {
        t.acked++;
      }
      step(e, Map.of(t.offset, "acked"), where + ", ack of " + t.offset);
    }

    private void cancel(Tracked t, String where) {
      Effects e = planner.onCommand(command(t.ns, new Cancel(new ItemId(0, t.offset).toString())), store, now);
      assertEquals(OutcomeResult.APPLIED, single(e).getResult(), where + ": cancel of " + t + " in state " + t.state);
      step(e, Map.of(t.offset, "cancelled"), where + ", cancel of " + t.offset);
    }

    /** Applies a plan's effects, then the dispatch that follows, as the processor does. */
    private void step(Effects e, Map<Long, String> ending, String where) {
      if (audit) {
        touched.clear();
      }
      apply(e, ending, where);
      if (!readyTopics.isEmpty()) {
        apply(planner.dispatch(readyTopics, store, now), Map.of(), where + ", dispatch");
      }
      store.markChanges();
      if (audit) {
        audit(where, audits % 10 == 0);
      }
    }

    private void apply(Effects e, Map<Long, String> ending, String where) {
      Set<Long> deadLettered = new HashSet<>();
      for (Effects.DeadLetter d : e.deadLetters()) {
        assertEquals(DeadLetterReason.TTL_EXPIRED, d.reason(), where + ": dead letter of " + d.offset());
        deadLettered.add(d.offset());
      }
      long overflowedHere = 0;
      long admittedHere = 0;
      for (Effects.Change c : e.changes()) {
        store.transition(c.offset(), c.before(), c.after());
        touched.add(c.offset());
        Tracked t = items.get((int) c.offset());
        ItemState from = c.before() == null ? null : c.before().getState();
        ItemState to = c.after() == null ? null : c.after().getState();
        String what = where + ": " + t + " " + from + " -> " + to;
        assertEquals(t.state, from, what + ": the change starts from the state the item is in");
        if (from == null) {
          assertFalse(t.arrived, what + ": only its arrival starts from nothing");
          assertTrue(to == ItemState.OVERFLOW || to == ItemState.READY || to == ItemState.DELAYED || to == ItemState.LEASED, what);
          t.arrived = true;
          if (to == ItemState.OVERFLOW) {
            t.overflowed = true;
            overflowedHere++;
            overflowing.get(t.ns).add(t.offset);
          } else {
            admitted(t, false, what);
          }
        } else if (from == ItemState.OVERFLOW) {
          assertTrue(to == null || to == ItemState.READY || to == ItemState.DELAYED,
              what + ": OVERFLOW leads to READY or DELAYED (admitted) or out (TTL, cancel)");
          assertTrue(overflowing.get(t.ns).remove(t.offset), what + ": not in OVERFLOW");
          if (to != null) {
            admittedHere++;
            admitted(t, true, what);
          }
        } else if (from == ItemState.READY) {
          assertTrue(to == null || to == ItemState.LEASED, what);
        } else if (from == ItemState.DELAYED) {
          assertTrue(to == null || to == ItemState.READY, what);
        } else if (from == ItemState.LEASED) {
          assertNull(to, what + ": a lease ends by an ack, a TTL or a cancel only (leases outlast the run)");
        } else {
          fail(what);
        }
        if (to == null) {
          String why = ending.get(t.offset);
          if (why == null) {
            assertTrue(deadLettered.contains(t.offset), what + ": gone without an ack, a cancel or a TTL dead letter");
            assertTrue(t.ttlMs != null && now >= t.enqueuedAt + t.ttlMs, what + ": TTL before its time");
            why = "ttl";
          }
          t.end = why;
          t.endedFrom = from;
        }
        t.state = to;
        List<String> key = List.of(t.ns, t.topic);
        long[] byState = byTopic.computeIfAbsent(key, k -> new long[ItemState.values().length]);
        Set<Long> ready = readyByTopic.computeIfAbsent(key, k -> new HashSet<>());
        if (from != null) {
          byState[from.ordinal()]--;
          ready.remove(t.offset);
        }
        if (to != null) {
          byState[to.ordinal()]++;
          if (to == ItemState.READY) {
            ready.add(t.offset);
          }
        }
      }
      long overflowedCount = e.counts().getOrDefault(QueueMetrics.OVERFLOWED, 0L);
      long admittedCount = e.counts().getOrDefault(QueueMetrics.ADMITTED, 0L);
      assertEquals(overflowedHere, overflowedCount, where + ": OVERFLOWED counts the items that went to OVERFLOW");
      assertEquals(admittedHere, admittedCount, where + ": ADMITTED counts the items that left OVERFLOW admitted");
      overflowedMetric += overflowedCount;
      admittedMetric += admittedCount;
      for (Effects.Leased l : e.leased()) {
        for (DeliveredItem d : l.items()) {
          Tracked t = items.get((int) ItemId.parse(d.getItemId()).offset());
          assertEquals(ItemState.LEASED, t.state, where + ": delivered " + t + " that is not leased");
          assertEquals(t.ns, d.getNamespace());
          t.delivered++;
          assertEquals(1, t.delivered, where + ": " + t + " delivered twice");
          held.add(d);
        }
      }
      readyTopics.addAll(e.readyTopics());
    }

    /** An item of a limited namespace leaves the admission line: nothing of its namespace older waits, nothing younger went before. */
    private void admitted(Tracked t, boolean fromOverflow, String what) {
      if (!limits.containsKey(t.ns)) {
        return;
      }
      admits.add(new Admit(t.ns, t.topic, t.offset, now, fromOverflow));
      TreeSet<Long> waiting = overflowing.get(t.ns);
      if (!waiting.headSet(t.offset).isEmpty()) {
        orderViolations.add(what + " while older " + waiting.headSet(t.offset) + " wait in OVERFLOW");
      }
      Long last = lastAdmitted.put(t.ns, t.offset);
      if (last != null && last > t.offset) {
        orderViolations.add(what + " after the younger " + last + " was admitted");
      }
    }

    /**
     * The store holds every item in exactly the state the plans put it in: the items changed since the
     * last audit, and the counts of every (namespace, topic) by state; with {@code whole} (every 10th
     * step or drain round, and at the end: reading every index at every step would take most of the
     * test's time), also every overflow index (oldest first) and ready index entire. A wrong index entry
     * stays, so the next whole audit finds it.
     */
    private void audit(String where, boolean whole) {
      audits++;
      for (long offset : touched) {
        Tracked t = items.get((int) offset);
        StoredItem s = store.get(offset);
        assertEquals(t.state, s == null ? null : s.getState(), where + ": the store's state of " + t);
      }
      for (String ns : NAMESPACES) {
        assertEquals(!overflowing.get(ns).isEmpty(), store.overflowNamespaces().contains(ns),
            where + ": " + ns + " listed as overflowing");
        if (whole) {
          assertEquals(new ArrayList<>(overflowing.get(ns)), store.overflowHead(ns, 100_000),
              where + ": " + ns + "'s overflow index, oldest first");
        }
        for (String topic : TOPICS) {
          List<String> key = List.of(ns, topic);
          long[] byState = byTopic.computeIfAbsent(key, k -> new long[ItemState.values().length]);
          TopicCounts c = store.counts(ns, topic);
          assertEquals(List.of(byState[ItemState.OVERFLOW.ordinal()], byState[ItemState.READY.ordinal()],
                  byState[ItemState.DELAYED.ordinal()], byState[ItemState.LEASED.ordinal()], byState[ItemState.PARKED.ordinal()]),
              List.of(c.overflow(), c.ready(), c.delayed(), c.leased(), c.parked()),
              where + ": " + ns + "/" + topic + " counts (overflow, ready, delayed, leased, parked)");
          if (whole) {
            Set<Long> index = new HashSet<>();
            for (ReadyEntry r : store.readyHead(ns, topic, 100_000)) {
              index.add(r.offset());
            }
            assertEquals(readyByTopic.getOrDefault(key, Set.of()), index,
                where + ": " + ns + "/" + topic + "'s ready index holds its READY items");
          }
        }
      }
    }

    private Command command(String ns, Object body) {
      return Command.newBuilder().setRequester(new Requester("w-" + ns, 0)).setSentAt(now).setBody(body)
          .setUrgent(false).build();
    }

    private static Outcome single(Effects e) {
      assertEquals(1, e.answers().size(), "one answer");
      return (Outcome) e.answers().get(0).body();
    }
  }
}
