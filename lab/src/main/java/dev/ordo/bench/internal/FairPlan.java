package dev.ordo.bench.internal;

import dev.ordo.client.NamespacePolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.utils.Utils;

/**
 * The numbers and names of the fairness scenario (issue 14), pure, so that what the bench claims to
 * run can be checked without running it.
 *
 * <p>Fair queueing orders the groups of one (namespace, topic, priority) on one partition: the
 * producer routes an item with a group key to the partition of the key's murmur2 hash (as Kafka's
 * default partitioner does), so two tenants whose keys land on different partitions never wait
 * for each other and there is nothing to be fair about. The plan therefore picks keys that share a
 * partition: Bob's key is {@link #BOB}, Alice's the first of {@code alice}, {@code alice-1},
 * {@code alice-2}... that hashes to Bob's partition ({@link #keyOnPartition}); the same for the
 * weighted pair, {@link #HEAVY} and the first {@code light}, {@code light-1}... on its partition.
 * Every item of a part has the same topic ({@link #TOPIC}) and priority ({@link #PRIORITY}).
 *
 * @param partitions partitions of the cluster's topics
 * @param bobKey Bob's group key
 * @param aliceKey Alice's group key, on Bob's partition
 * @param partition the partition Bob's and Alice's items are on
 * @param heavyKey the group of weight {@link #HEAVY_WEIGHT}
 * @param lightKey the group of weight {@link #LIGHT_WEIGHT}, on the heavy group's partition
 * @param weightsPartition the partition of the weighted groups
 * @param backlog Bob's items
 * @param baselineItems Alice's items on the empty queue
 * @param weightedItems items of each weighted group
 * @param groupKeys distinct group keys of the end-to-end run with keys
 */
public record FairPlan(int partitions, String bobKey, String aliceKey, int partition, String heavyKey, String lightKey,
    int weightsPartition, int backlog, int baselineItems, int weightedItems, int groupKeys) {
  /** How often Alice enqueues, as the issue states it. */
  public static final Duration ALICE_INTERVAL = Duration.ofMillis(100);
  /** Bob and Alice: the groups with ready items on the partition while Bob's backlog lasts. */
  public static final int ACTIVE_GROUPS = 2;
  public static final String BOB = "bob";
  public static final String ALICE = "alice";
  public static final String HEAVY = "heavy";
  public static final String LIGHT = "light";
  public static final double HEAVY_WEIGHT = 3;
  public static final double LIGHT_WEIGHT = 1;
  /** The one topic and priority of every item of the scenario's first two parts. */
  public static final String TOPIC = "files";
  public static final int PRIORITY = 5;
  /** Alice alone: her wait on an empty queue. */
  public static final String NS_EMPTY = "fair-empty";
  /** Bob's backlog, then Alice. */
  public static final String NS_BACKLOG = "fair-backlog";
  /** The weighted groups; the namespace whose policy sets the weights. */
  public static final String NS_WEIGHTS = "fair-weights";

  /** The plan for a cluster of {@code partitions} partitions and the sizes given. */
  public static FairPlan of(int partitions, int backlog, int baselineItems, int weightedItems, int groupKeys) {
    if (partitions < 1 || backlog < 1 || baselineItems < 1 || weightedItems < 1 || groupKeys < 1) {
      throw new IllegalArgumentException("partitions and sizes must be at least 1, got " + partitions + ", " + backlog
          + ", " + baselineItems + ", " + weightedItems + ", " + groupKeys);
    }
    int p = partitionOf(BOB, partitions);
    int w = partitionOf(HEAVY, partitions);
    return new FairPlan(partitions, BOB, keyOnPartition(ALICE, p, partitions), p, HEAVY,
        keyOnPartition(LIGHT, w, partitions), w, backlog, baselineItems, weightedItems, groupKeys);
  }

  /**
   * The partition {@code QueueProducer} sends items of {@code groupKey} to: Kafka's default
   * partitioner over the key's UTF-8 bytes.
   */
  public static int partitionOf(String groupKey, int partitions) {
    return Utils.toPositive(Utils.murmur2(groupKey.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  /** The first of {@code prefix}, {@code prefix-1}, {@code prefix-2}... whose items go to {@code partition}. */
  public static String keyOnPartition(String prefix, int partition, int partitions) {
    if (partition < 0 || partition >= partitions) {
      throw new IllegalArgumentException("partition " + partition + " of " + partitions);
    }
    for (int i = 0; ; i++) {
      String key = i == 0 ? prefix : prefix + "-" + i;
      if (partitionOf(key, partitions) == partition) {
        return key;
      }
    }
  }

  /** The weights' namespace policy: {@code groupWeights {heavy: 3, light: 1}}, nothing else. */
  public NamespacePolicy weightsPolicy() {
    return new NamespacePolicy(null, null, null, null, null,
        new NamespacePolicy.Groups(null, null, Map.of(heavyKey, HEAVY_WEIGHT, lightKey, LIGHT_WEIGHT)));
  }

  /** The weight ratio the weighted part should show: heavy over light. */
  public static double weightRatio() {
    return HEAVY_WEIGHT / LIGHT_WEIGHT;
  }
}
