package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.api.Shards;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Rate;
import dev.ordo.schema.Requester;
import dev.ordo.store.PriorityStore;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/**
 * Shuffle sharding over eight partitions, each a planner over its own real store with its partition
 * number (decisions D62), fed by the producers' routing rule ({@link Shards#forGroup}, {@link Shards#of},
 * {@link Shards#choose} over each partition's backlog of the topic, as its stats record says it): the
 * isolation Amazon describes, in dispatch counts; a group's concurrency limit and its rate kept across
 * its shards; ordered topics on one partition; duplicates on one shard.
 */
class ShuffleShardingSimulationTest {
  private static final String NS = "ns";
  private static final int PARTITIONS = 8;
  private static final Requester WORKER = new Requester("w", 0);

  /** Group keys F and Q whose 2-shard combinations of 8 share exactly one partition. */
  private static String[] floodAndQuiet() {
    for (int i = 0; ; i++) {
      for (int j = 0; j < 200; j++) {
        int[] f = Shards.of("flood-" + i, 2, PARTITIONS);
        int[] q = Shards.of("quiet-" + j, 2, PARTITIONS);
        if (f[0] == q[0] && shared(f, q) == 1) {
          return new String[] {"flood-" + i, "quiet-" + j}; // the same home: without shards, one partition for both
        }
      }
    }
  }

  private static int shared(int[] a, int[] b) {
    int n = 0;
    for (int p : a) {
      n += Shards.indexOf(b, p) >= 0 ? 1 : 0;
    }
    return n;
  }

  /**
   * The isolation: group F floods (400 items, and 100 more while Q enqueues), group Q enqueues 40. Each
   * round every partition serves one demand of 5 items. With {@code shards: 2}, Q's items go to the one
   * of its shards F does not use, and in every round Q has as many items dispatched as it would with F
   * absent from that partition (5 a round, none passed to F), so Q drains in 8 rounds, as alone. Without
   * shards, Q's home is F's: Q gets about half of each demand there (fair queueing's turns) and needs twice as many.
   */
  @Test
  void aFloodLeavesAGroupSharingOneShardServedAsIfAlone() {
    String[] keys = floodAndQuiet();
    String f = keys[0];
    String q = keys[1];
    NamespacePolicy sharded = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setShards(2).build();
    NamespacePolicy plain = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).build();

    Cluster alone = new Cluster(sharded);
    alone.enqueue(q, 40, "t");
    Cluster flooded = new Cluster(sharded);
    flooded.enqueue(f, 400, "t");
    for (int i = 0; i < 40; i++) {
      flooded.enqueue(q, 1, "t");
      flooded.enqueue(f, 3, "t");
    }
    Cluster unsharded = new Cluster(plain);
    unsharded.enqueue(f, 400, "t");
    for (int i = 0; i < 40; i++) {
      unsharded.enqueue(q, 1, "t");
      unsharded.enqueue(f, 3, "t");
    }

    int[] fShards = Shards.of(f, 2, PARTITIONS);
    int[] qShards = Shards.of(q, 2, PARTITIONS);
    int quietOnly = Shards.indexOf(fShards, qShards[0]) >= 0 ? qShards[1] : qShards[0];
    assertEquals(40, flooded.items(quietOnly, q), "every Q item on the shard F does not use");
    assertEquals(0, flooded.items(quietOnly, f));
    assertEquals(260, flooded.items(fShards[0], f), "F's 520 spread evenly over its own shards");
    assertEquals(260, flooded.items(fShards[1], f));

    int roundsFlooded = flooded.roundsToServe(q, 5, true);
    assertEquals(8, roundsFlooded, "40 items at 5 a round on Q's partition: as alone there");
    int roundsAlone = alone.roundsToServe(q, 5, false);
    assertTrue(roundsAlone <= roundsFlooded, "alone, Q spreads over both its shards: " + roundsAlone);
    int roundsUnsharded = unsharded.roundsToServe(q, 5, false);
    assertTrue(roundsUnsharded >= 2 * roundsFlooded - 1,
        "one partition per key: Q shares its only partition with F, about half of each demand: " + roundsUnsharded);
  }

  /**
   * A group's limit over its shards: {@code groupConcurrency: 5}, {@code shards: 2}, the group's items
   * over both its shards. Demands on every partition until nothing is left, acks in between: never more
   * than 5 leased across the eight partitions, and 5 at once reached (the whole limit usable). Shares
   * 3 and 2; with a limit of 1 the group uses its home alone; a limit override likewise.
   */
  @Test
  void aGroupsLimitHoldsAcrossItsShards() {
    NamespacePolicy policy = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setShards(2)
        .setGroupConcurrency(5).setGroupConcurrencyOverrides(Map.of("solo", 1)).build();
    Cluster c = new Cluster(policy);
    c.enqueue("g", 60, "t");
    c.enqueue("solo", 10, "t");
    int[] shards = Shards.of("g", 2, PARTITIONS);
    assertEquals(30, c.items(shards[0], "g"));
    assertEquals(30, c.items(shards[1], "g"));
    assertEquals(10, c.items(Shards.of("solo", 1, PARTITIONS)[0], "solo"), "a limit of 1: one shard, the home");
    assertEquals(3, c.parts[shards[0]].planner.groupLimit(NS, "g"));
    assertEquals(2, c.parts[shards[1]].planner.groupLimit(NS, "g"));

    SplittableRandom random = new SplittableRandom(7);
    int most = 0;
    int done = 0;
    List<DeliveredItem> out = new ArrayList<>();
    while (done < 70) {
      for (Part p : c.parts) {
        out.addAll(p.demand(1 + random.nextInt(4)));
      }
      long leased = 0;
      long soloLeased = 0;
      for (Part p : c.parts) {
        leased += p.store.groupLeased(NS, "g");
        soloLeased += p.store.groupLeased(NS, "solo");
      }
      assertTrue(leased <= 5, "g has " + leased + " leased across its shards, over its limit of 5");
      assertTrue(soloLeased <= 1, "solo has " + soloLeased);
      most = (int) Math.max(most, leased);
      for (int i = out.size() - 1; i >= 0; i--) { // acks of about half, at random
        if (random.nextBoolean()) {
          DeliveredItem d = out.remove(i);
          assertTrue(c.parts[ItemId.parse(d.getItemId()).partition()].ack(d));
          done++;
        }
      }
    }
    assertEquals(5, most, "the limit reached across shards: 3 on one, 2 on the other");
  }

  /**
   * A group's rate over its shards (decisions D61, D62): {@code groupRate} 10/s with a burst of 4,
   * {@code shards: 2}, 300 items of the group spread over its two shards, a standing demand on every
   * partition for 20 s (timer runs every 20 ms, leases acked at once) after the buckets had 2 s to fill.
   * Across the eight partitions the group gets at most {@code 4 + 10 × t} leases in every window of
   * length t, and its whole rate: 4 at once, then 10 a second. Were each shard to apply the whole rate,
   * it would get 8 at once and 20 a second.
   */
  @Test
  void aGroupsRateHoldsAcrossItsShards() {
    NamespacePolicy policy = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setShards(2)
        .setGroupRate(new Rate(10.0, 4L)).build();
    Cluster c = new Cluster(policy);
    c.enqueue("g", 300, "t");
    int[] shards = Shards.of("g", 2, PARTITIONS);
    assertEquals(150, c.items(shards[0], "g"), "spread over both shards");
    assertEquals(150, c.items(shards[1], "g"));

    List<Long> leasedAt = c.leaseUnderStandingDemand(2_000, 20_000);
    assertWithin(leasedAt, 4, 10.0);
    assertEquals(4, leasedAt.stream().filter(t -> t.equals(leasedAt.get(0))).count(), "the group's burst at once, no more");
    assertEquals(new Rate(5.0, 2L), c.parts[shards[0]].planner.groupRate(NS, "g"), "half the rate, half the burst");
    assertEquals(new Rate(5.0, 2L), c.parts[shards[1]].planner.groupRate(NS, "g"));
    assertTrue(leasedAt.size() >= 4 + 10 * 20 - 2, "the whole rate usable across the shards: " + leasedAt.size());
    for (int p : shards) {
      long here = c.parts[p].leasedAt.size();
      assertTrue(here >= 95 && here <= 107, "each shard about half: " + here + " on partition " + p);
    }
  }

  /**
   * A burst smaller than the shards: {@code shards: 4}, {@code groupRate} 2/s with a burst of 2. The group
   * uses its first 2 shards only (each holding 1 token of the burst and 1/s: a shard's bucket needs a
   * capacity of 1 to lease at all), so the producer sends nothing to the other two, the bound {@code 2 +
   * 2 × t} holds in every window, and every item is leased.
   */
  @Test
  void aBurstSmallerThanTheShardsUsesThatManyShards() {
    NamespacePolicy policy = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setShards(4)
        .setGroupRate(new Rate(2.0, 2L)).build();
    assertEquals(2, Shards.forGroup(policy, "t", "g", PARTITIONS), "two shards: one token of the burst each");
    Cluster c = new Cluster(policy);
    c.enqueue("g", 40, "t");
    int[] four = Shards.of("g", 4, PARTITIONS);
    assertEquals(20, c.items(four[0], "g"));
    assertEquals(20, c.items(four[1], "g"));
    assertEquals(0, c.items(four[2], "g") + c.items(four[3], "g"), "nothing on shards that would hold no token");

    List<Long> leasedAt = c.leaseUnderStandingDemand(2_000, 25_000);
    assertWithin(leasedAt, 2, 2.0);
    assertEquals(40, leasedAt.size(), "every item leased: none stuck on a shard without tokens");
    assertEquals(new Rate(1.0, 1L), c.parts[four[0]].planner.groupRate(NS, "g"));
  }

  /** Every window of the lease times (sorted) holds at most {@code burst + perSecond × its length} leases. */
  private static void assertWithin(List<Long> leasedAt, long burst, double perSecond) {
    for (int i = 0; i < leasedAt.size(); i++) {
      for (int j = i; j < leasedAt.size(); j++) {
        long window = leasedAt.get(j) - leasedAt.get(i);
        double bound = burst + perSecond * window / 1000.0;
        assertTrue(j - i + 1 <= bound + 1e-9, (j - i + 1) + " leases within " + window + " ms across the shards, more than "
            + bound);
      }
    }
  }

  /**
   * Weights: each shard applies the group's weight divided by its shards, so the group as a whole keeps
   * its weight: with {@code shards: 2}, a group of weight 2 on a partition against one of weight 1 whose
   * limit of 1 keeps it on one shard gets one turn for each of the other's.
   */
  @Test
  void aShardedGroupsWeightIsSplitOverItsShards() {
    NamespacePolicy policy = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setShards(2)
        .setGroupWeights(Map.of("heavy", 2.0)).setGroupConcurrencyOverrides(Map.of("single", 1)).build();
    Cluster c = new Cluster(policy);
    Part p = c.parts[0];
    assertEquals(2 * QueuePlanner.SLOT_UNIT / 2, p.planner.slotIncrement(NS, "t", "heavy"), "weight 2 over 2 shards: 1");
    assertEquals(2 * QueuePlanner.SLOT_UNIT, p.planner.slotIncrement(NS, "t", "light"), "weight 1 over 2 shards: 1/2");
    assertEquals(QueuePlanner.SLOT_UNIT, p.planner.slotIncrement(NS, "t", "single"), "one shard: its whole weight");
    NamespacePolicy ordered = NamespacePolicy.newBuilder(policy).setOrderedTopics(Map.of("fifo", true)).build();
    assertEquals(QueuePlanner.SLOT_UNIT, new Cluster(ordered).parts[0].planner.slotIncrement(NS, "fifo", "light"),
        "an ordered topic keeps one shard");
    NamespacePolicy none = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setGroupWeights(Map.of("heavy", 2.0)).build();
    assertEquals(QueuePlanner.SLOT_UNIT / 2, new Cluster(none).parts[0].planner.slotIncrement(NS, "t", "heavy"),
        "without shards, as before");
  }

  /** Ordered topics keep one partition per group key (an ordered group needs one): its home, whatever the backlog. */
  @Test
  void anOrderedTopicKeepsOneShard() {
    NamespacePolicy policy = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setShards(4)
        .setOrderedTopics(Map.of("orders", true)).build();
    Cluster c = new Cluster(policy);
    c.enqueue("g", 30, "orders");
    c.enqueue("g", 30, "t");
    c.enqueue("g", 5, "jobs.fifo");
    int home = Shards.home("g", PARTITIONS);
    assertEquals(30, c.items(home, "g", "orders"), "every item of the ordered topic on the group's home");
    assertEquals(5, c.items(home, "g", "jobs.fifo"), "a *.fifo topic is ordered by its name");
    Set<Integer> used = new HashSet<>();
    for (int p = 0; p < PARTITIONS; p++) {
      if (c.items(p, "g", "t") > 0) {
        used.add(p);
      }
    }
    assertEquals(4, used.size(), "the unordered topic over the group's four shards");
  }

  /** A grouped item with a deduplication ID goes to the shard of its ID's hash, whatever the backlog, so duplicates meet. */
  @Test
  void duplicatesMeetOnOneShardWhateverTheBacklog() {
    NamespacePolicy policy = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0).setShards(2).build();
    Cluster c = new Cluster(policy);
    int first = c.route("g", "t", "order-17");
    c.enqueue("g", 50, "t"); // backlogs move
    for (int i = 0; i < 5; i++) {
      assertEquals(first, c.route("g", "t", "order-17"));
      c.enqueueAt(first, "g", "t");
    }
    assertTrue(Shards.indexOf(Shards.of("g", 2, PARTITIONS), first) >= 0);
  }

  /** Eight partitions, each a planner and a store of its own, and the producers' routing. */
  private static final class Cluster {
    final Part[] parts = new Part[PARTITIONS];
    final NamespacePolicy policy;
    final List<long[]> enqueued = new ArrayList<>();

    Cluster(NamespacePolicy policy) {
      this.policy = policy;
      for (int p = 0; p < PARTITIONS; p++) {
        parts[p] = new Part(p, policy);
      }
    }

    /** The producer's choice ({@code QueueProducer}): the same pure functions, backlogs from the partitions' counts. */
    int route(String group, String topic, String dedupId) {
      int k = Shards.forGroup(policy, topic, group, PARTITIONS);
      int[] shards = Shards.of(group, k, PARTITIONS);
      if (dedupId != null) {
        return Shards.forDedup(shards, NS, topic, dedupId);
      }
      long[] backlogs = new long[shards.length];
      for (int i = 0; i < shards.length; i++) {
        backlogs[i] = parts[shards[i]].store.counts(NS, topic).waiting();
      }
      return Shards.choose(shards, backlogs);
    }

    void enqueue(String group, int n, String topic) {
      for (int i = 0; i < n; i++) {
        enqueueAt(route(group, topic, null), group, topic);
      }
    }

    void enqueueAt(int partition, String group, String topic) {
      parts[partition].enqueue(group, topic);
    }

    long items(int partition, String group) {
      return items(partition, group, "t");
    }

    /**
     * Each partition's processor loop over simulated time: {@code fillMs} of timer runs without demand (the
     * rate buckets fill), then a standing demand of topic t on every partition and {@code forMs} of timer
     * runs every 20 ms, each followed by dispatch of what became ready; leases acked at once. The lease
     * times across all partitions, in order.
     */
    List<Long> leaseUnderStandingDemand(long fillMs, long forMs) {
      for (Part p : parts) {
        p.planner.started(p.now);
      }
      long start = parts[0].now;
      for (long t = start + 20; t <= start + fillMs; t += 20) {
        for (Part p : parts) {
          p.tick(t);
        }
      }
      for (Part p : parts) {
        p.standingDemand();
      }
      for (long t = start + fillMs + 20; t <= start + fillMs + forMs; t += 20) {
        for (Part p : parts) {
          p.tick(t);
        }
      }
      List<Long> all = new ArrayList<>();
      for (Part p : parts) {
        all.addAll(p.leasedAt);
      }
      all.sort(null);
      return all;
    }

    long items(int partition, String group, String topic) {
      return parts[partition].enqueuedOf.stream().filter(e -> e.equals(topic + "/" + group)).count();
    }

    /**
     * Rounds of one demand of {@code perDemand} items on every partition (the leases acked at once) until
     * every item of {@code group} is dispatched. {@code asIfAlone}: check that in each round each
     * partition gave the group as many items as it had ready there, up to the demand.
     */
    int roundsToServe(String group, int perDemand, boolean asIfAlone) {
      long left = 0;
      for (Part p : parts) {
        left += p.enqueuedOf.stream().filter(e -> e.endsWith("/" + group)).count();
      }
      int rounds = 0;
      while (left > 0) {
        rounds++;
        for (Part p : parts) {
          long readyBefore = p.readyOf(group);
          List<DeliveredItem> got = p.demand(perDemand);
          long mine = 0;
          for (DeliveredItem d : got) {
            if (group.equals(d.getGroupKey())) {
              mine++;
            }
            assertTrue(p.ack(d));
          }
          if (asIfAlone) {
            assertEquals(Math.min(perDemand, readyBefore), mine,
                "round " + rounds + ", partition " + p.partition + ": " + group + " served as if alone");
          }
          left -= mine;
        }
        assertTrue(rounds < 1_000);
      }
      return rounds;
    }
  }

  private static final class Part {
    final int partition;
    final PriorityStore store;
    final QueuePlanner planner;
    final List<String> enqueuedOf = new ArrayList<>();
    /** The lease times of {@link #tick} and {@link #standingDemand}. */
    final List<Long> leasedAt = new ArrayList<>();
    private final Set<TopicRef> readyTopics = new java.util.LinkedHashSet<>();
    private long nextOffset;
    private long now = 1_000_000;

    Part(int partition, NamespacePolicy policy) {
      this.partition = partition;
      Properties props = new Properties();
      props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ordo-shards");
      props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
      MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props);
      List<KeyValueStore<Bytes, byte[]>> kvs = new ArrayList<>();
      for (String name : new String[] {PriorityStore.STORE_NAME, PriorityStore.INDEX_STORE_NAME}) {
        KeyValueStore<Bytes, byte[]> kv = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name),
            Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        kv.init(context.getStateStoreContext(), kv);
        kvs.add(kv);
      }
      store = new PriorityStore(kvs.get(0), kvs.get(1));
      if (!store.openIndex()) {
        while (store.rebuilding()) {
          store.rebuildStep(7);
        }
      }
      store.startGeneration();
      planner = new QueuePlanner(new QueuePlanner.Settings(new QueueDefaults(60_000, 1_000, null, 600_000),
          List.of(Duration.ofMinutes(10)), 10_000, 100_000, 0, false, PARTITIONS),
          partition, new SplittableRandom(partition), ns -> NS.equals(ns) ? policy : null, NamespaceLoad.NONE);
    }

    void enqueue(String group, String topic) {
      Item item = Item.newBuilder().setNamespace(NS).setTopic(topic).setPriority(0).setGroupKey(group)
          .setPayload(ByteBuffer.wrap(new byte[] {1})).build();
      apply(planner.onItem(nextOffset++, now, item, store, now));
      enqueuedOf.add(topic + "/" + group);
    }

    long readyOf(String group) {
      long n = 0;
      for (long o = 0; o < nextOffset; o++) {
        var s = store.get(o);
        if (s != null && s.getState() == dev.ordo.schema.ItemState.READY && group.equals(s.getItem().getGroupKey())) {
          n++;
        }
      }
      return n;
    }

    List<DeliveredItem> demand(int n) {
      List<DeliveredItem> got = apply(planner.onCommand(command(new Demand(NS, Map.of("t", n), 1L, true, false, false, -1L, 0L)), store, now));
      planner.expireDemands(now + 2);
      for (DeliveredItem d : got) {
        assertEquals(partition, ItemId.parse(d.getItemId()).partition());
      }
      return got;
    }

    /** A lease consumer's demand of topic t that stays open (a minute), served as items and tokens come. */
    void standingDemand() {
      record(planner.onCommand(command(new Demand(NS, Map.of("t", 100_000), 60_000L, true, false, false, -1L, 0L)),
          store, now));
    }

    /** A timer run at {@code t}, then dispatch of the topics that became ready; the leases acked at once. */
    void tick(long t) {
      now = t;
      record(planner.onTimers(store, now));
      record(planner.dispatch(readyTopics, store, now));
    }

    private void record(Effects effects) {
      readyTopics.addAll(effects.readyTopics());
      for (DeliveredItem d : apply(effects)) {
        leasedAt.add(now);
        assertTrue(ack(d));
      }
    }

    boolean ack(DeliveredItem d) {
      long offset = ItemId.parse(d.getItemId()).offset();
      apply(planner.onCommand(command(new Ack(d.getItemId(), d.getLeaseId())), store, now));
      return store.get(offset) == null;
    }

    private List<DeliveredItem> apply(Effects effects) {
      List<DeliveredItem> leased = new ArrayList<>();
      for (Effects.Change c : effects.changes()) {
        store.transition(c.offset(), c.before(), c.after());
      }
      for (Effects.Leased l : effects.leased()) {
        leased.addAll(l.items());
      }
      store.markChanges();
      return leased;
    }

    private Command command(Object body) {
      return Command.newBuilder().setRequester(WORKER).setSentAt(now).setBody(body).setUrgent(false).build();
    }
  }
}
