package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.Nack;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.PriorityStore;
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
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Fair queueing through the planner over a real store, on generated workloads: the weighted
 * fairness bound of start-time fair queueing, and, with nacks, lease expiries, priorities, items
 * without a group and restarts (orderly, and crashes that rebuild the index), per-group concurrency
 * limits never exceeded, the leased count per group equal to the group's LEASED items, and every
 * item acked exactly once.
 */
class FairQueueingProperties {
  private static final String NS = "ns";
  private static final long T0 = 1_000_000;
  private static final long LEASE_MS = 5_000;
  private static final Requester WORKER = new Requester("w", 0);

  /**
   * Groups of weights 1 to 3, each with a backlog enqueued in a random interleaving, served by
   * demands of random sizes: while every group still has items, no two groups' weighted services
   * differ by more than {@code 1/w_i + 1/w_j} (the start-time fair queueing bound for items of equal
   * cost), so a group of weight 3 gets three turns for one of a group of weight 1. The same whatever
   * the layout (decisions D48): without limits (every ready item in the ready index), with a limit
   * that never binds (each group's items in its queue), or with the policy switching between the two
   * while the backlog is served (both layouts at once, and flat items moved into their queues).
   */
  @Property(seed = "42", tries = 60)
  void weightedServiceStaysWithinTheFairnessBound(@ForAll @IntRange(min = 2, max = 4) int groups,
      @ForAll @IntRange(min = 5, max = 40) int itemsEach, @ForAll @IntRange(min = 0, max = 2) int layout,
      @ForAll long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, Double> weights = new LinkedHashMap<>();
    for (int g = 0; g < groups; g++) {
      weights.put("g" + g, (double) (1 + random.nextInt(3)));
    }
    NamespacePolicy flat =
        NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setGroupWeights(weights).build();
    // A limit above any group's backlog: it never binds, but the groups' items wait in their queues.
    NamespacePolicy queued = NamespacePolicy.newBuilder(flat).setGroupConcurrency(1_000).build();
    Sim sim = new Sim(layout == 1 ? queued : flat);
    List<String> order = new ArrayList<>();
    for (String g : weights.keySet()) {
      for (int i = 0; i < itemsEach; i++) {
        order.add(g);
      }
    }
    shuffle(order, random);
    Map<String, Integer> left = new HashMap<>();
    for (String g : order) {
      if (layout == 2 && random.nextInt(8) == 0) {
        sim.policy(sim.policy() == flat ? queued : flat);
      }
      sim.enqueue(g, 0);
      left.merge(g, 1, Integer::sum);
    }
    Map<String, Integer> served = new HashMap<>();
    for (int round = 0; left.values().stream().anyMatch(n -> n > 0); round++) {
      assertTrue(round < 10 * groups * itemsEach, "drained in time: " + left);
      if (layout == 2 && random.nextInt(4) == 0) {
        sim.policy(sim.policy() == flat ? queued : flat);
      }
      for (DeliveredItem d : sim.demand(1 + random.nextInt(7))) {
        String g = d.getGroupKey();
        served.merge(g, 1, Integer::sum);
        left.merge(g, -1, Integer::sum);
        sim.ack(d);
        if (left.values().stream().allMatch(n -> n > 0)) {
          for (String a : weights.keySet()) {
            for (String b : weights.keySet()) {
              double gap = served.getOrDefault(a, 0) / weights.get(a) - served.getOrDefault(b, 0) / weights.get(b);
              assertTrue(gap <= 1 / weights.get(a) + 1 / weights.get(b) + 1e-9,
                  a + " " + served + " ahead of " + b + " by " + gap + ", weights " + weights);
            }
          }
        }
      }
    }
  }

  /**
   * Random enqueues (five groups and none, three priorities), demands, acks, nacks, lease expiries
   * and restarts under a limit of 2 leased per group (1 for g0): the limit is never exceeded, the
   * store's leased count per group is its LEASED items, and every item is acked exactly once. With
   * {@code policyChanges}, the policy also moves between that one, a limit for g1 alone and none
   * (decisions D48: items of a group without a limit are flat in the ready index, and move into
   * their group's queue when dispatch passes them at a limit set since): no lease is granted over the
   * limit in force when it is granted.
   */
  @Property(seed = "43", tries = 80)
  void limitsHoldAndNothingIsLostOrDoubledAcrossNacksExpiriesAndRestarts(@ForAll long seed,
      @ForAll @IntRange(min = 20, max = 200) int steps, @ForAll boolean policyChanges) {
    SplittableRandom random = new SplittableRandom(seed);
    NamespacePolicy limited = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setGroupConcurrency(2)
        .setGroupConcurrencyOverrides(Map.of("g0", 1)).build();
    List<NamespacePolicy> policies = List.of(limited,
        NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setGroupConcurrencyOverrides(Map.of("g1", 1)).build(),
        NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).build());
    Sim sim = new Sim(limited);
    List<DeliveredItem> held = new ArrayList<>();
    Set<Long> acked = new HashSet<>();
    for (int step = 0; step < steps; step++) {
      int what = random.nextInt(100);
      if (what < 35) {
        sim.enqueue(random.nextInt(6) == 0 ? null : "g" + random.nextInt(5), random.nextInt(3));
      } else if (what < 55) {
        held.addAll(sim.demand(1 + random.nextInt(6)));
      } else if (what < 72 && !held.isEmpty()) {
        DeliveredItem d = held.remove(random.nextInt(held.size()));
        if (sim.ack(d)) {
          assertTrue(acked.add(ItemId.parse(d.getItemId()).offset()), "acked twice: " + d.getItemId());
        }
      } else if (what < 82 && !held.isEmpty()) {
        sim.nack(held.remove(random.nextInt(held.size())));
      } else if (what < 92) {
        sim.advance(1 + random.nextInt((int) LEASE_MS)); // some leases run out: their items come back
      } else if (policyChanges && random.nextBoolean()) {
        sim.policy(policies.get(random.nextInt(policies.size())));
      } else {
        sim.restart(random.nextBoolean());
      }
      sim.checkLimits();
    }
    // Drain: every item is acked exactly once in the end.
    for (int round = 0; round < 10_000 && acked.size() < sim.enqueued; round++) {
      sim.advance(LEASE_MS + 1);
      for (DeliveredItem d : sim.demand(50)) {
        if (sim.ack(d)) {
          assertTrue(acked.add(ItemId.parse(d.getItemId()).offset()), "acked twice: " + d.getItemId());
        }
      }
      sim.checkLimits();
    }
    assertEquals(sim.enqueued, acked.size(), "every item acked once");
  }

  private static void shuffle(List<String> list, SplittableRandom random) {
    for (int i = list.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      list.set(j, list.set(i, list.get(j)));
    }
  }

  /** A partition: the planner over a store whose two key-value stores survive restarts. */
  private static final class Sim {
    /** The namespace's policy: the planner reads it at every decision, as it reads the policies' store. */
    private NamespacePolicy policy;
    private boolean policyChanged;
    private final List<KeyValueStore<Bytes, byte[]>> kvs = new ArrayList<>();
    private PriorityStore store;
    private QueuePlanner planner;
    private final List<TopicRef> readyTopics = new ArrayList<>();
    private long now = T0;
    private long nextOffset;
    int enqueued;

    Sim(NamespacePolicy policy) {
      this.policy = policy;
      Properties props = new Properties();
      props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ordo-fair-queueing");
      props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
      MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props);
      for (String name : new String[] {PriorityStore.STORE_NAME, PriorityStore.INDEX_STORE_NAME}) {
        KeyValueStore<Bytes, byte[]> kv = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name),
            Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        kv.init(context.getStateStoreContext(), kv);
        kvs.add(kv);
      }
      open();
    }

    /** A new policy for the namespace, as an update of the policies' topic brings it. */
    void policy(NamespacePolicy next) {
      policyChanged |= next != policy;
      policy = next;
    }

    NamespacePolicy policy() {
      return policy;
    }

    private void open() {
      store = new PriorityStore(kvs.get(0), kvs.get(1));
      if (!store.openIndex()) {
        while (store.rebuilding()) {
          store.rebuildStep(7);
        }
      }
      store.startGeneration();
      planner = new QueuePlanner(new QueuePlanner.Settings(new QueueDefaults(LEASE_MS, 1_000, null, 600_000),
          List.of(Duration.ofMinutes(10)), 10_000, 100_000, 0, false, 1),
          0, new SplittableRandom(nextOffset), ns -> NS.equals(ns) ? this.policy : null, NamespaceLoad.NONE);
    }

    /** A new planner over the same stores: after an orderly close (the index is trusted) or a crash (rebuilt). */
    void restart(boolean orderly) {
      if (orderly) {
        store.markChanges();
        store.closeIndex();
      }
      open();
    }

    void enqueue(String group, int priority) {
      Item item = Item.newBuilder().setNamespace(NS).setTopic("t").setPriority(priority).setGroupKey(group)
          .setPayload(ByteBuffer.wrap(new byte[] {1})).build();
      apply(planner.onItem(nextOffset++, now, item, store, now));
      enqueued++;
    }

    /**
     * A demand for n items, answered now (it is dropped after, so nothing arrives for it later). No
     * group is given a lease over its limit: it has at most its limit leased after, or no more than
     * before (a limit set or lowered since its leases were granted).
     */
    List<DeliveredItem> demand(int n) {
      Map<String, Long> before = new HashMap<>();
      for (int g = 0; g < 5; g++) {
        before.put("g" + g, store.groupLeased(NS, "g" + g));
      }
      List<DeliveredItem> got = apply(planner.onCommand(command(new Demand(NS, Map.of("t", n), 1L, true, false, false, -1L, 0L)), store, now));
      planner.expireDemands(now + 2);
      for (int g = 0; g < 5; g++) {
        String group = "g" + g;
        Integer limit = planner.groupLimit(NS, group);
        long after = store.groupLeased(NS, group);
        assertTrue(limit == null || after <= Math.max(limit, before.get(group)),
            group + " has " + after + " leased after a demand, over its limit of " + limit + " (before: " + before.get(group) + ")");
      }
      return got;
    }

    /** True when the ack applied (the lease was still the item's). */
    boolean ack(DeliveredItem d) {
      StoredItem before = store.get(ItemId.parse(d.getItemId()).offset());
      apply(planner.onCommand(command(new Ack(d.getItemId(), d.getLeaseId())), store, now));
      return before != null && before.getState() == ItemState.LEASED && d.getLeaseId().equals(before.getLeaseId())
          && store.get(ItemId.parse(d.getItemId()).offset()) == null;
    }

    void nack(DeliveredItem d) {
      apply(planner.onCommand(command(new Nack(d.getItemId(), d.getLeaseId(), 0L, null, "boom", false)), store, now));
    }

    void advance(long ms) {
      now += ms;
      apply(planner.onTimers(store, now));
    }

    private List<DeliveredItem> apply(Effects effects) {
      List<DeliveredItem> leased = new ArrayList<>();
      for (Effects.Change c : effects.changes()) {
        store.transition(c.offset(), c.before(), c.after());
      }
      for (Effects.Leased l : effects.leased()) {
        leased.addAll(l.items());
      }
      readyTopics.addAll(effects.readyTopics());
      store.markChanges();
      return leased;
    }

    private Command command(Object body) {
      return Command.newBuilder().setRequester(WORKER).setSentAt(now).setBody(body).setUrgent(false).build();
    }

    /** Per group: never more leased than its limit, and the store's count is its LEASED items. */
    void checkLimits() {
      Map<String, Integer> leased = new HashMap<>();
      for (long offset = 0; offset < nextOffset; offset++) {
        StoredItem s = store.get(offset);
        if (s != null && s.getState() == ItemState.LEASED && s.getItem().getGroupKey() != null) {
          leased.merge(s.getItem().getGroupKey(), 1, Integer::sum);
        }
      }
      for (int g = 0; g < 5; g++) {
        String group = "g" + g;
        int n = leased.getOrDefault(group, 0);
        assertEquals(n, store.groupLeased(NS, group), "the store's count of " + group + "'s leases");
        Integer limit = planner.groupLimit(NS, group);
        if (policy.getGroupConcurrency() != null) {
          assertNotNull(limit);
        }
        // After a policy change a group may hold more than a limit set since (demand() checks the grants).
        assertTrue(limit == null || n <= limit || policyChanged,
            group + " has " + n + " leased, over its limit of " + limit);
      }
    }
  }
}
