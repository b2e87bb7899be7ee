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
 * isolation Amazon describes, in dispatch counts; a group's concurrency limit kept across its shards;
 * ordered topics on one partition; duplicates on one shard.
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
    private long nextOffset;
    private final long now = 1_000_000;

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
