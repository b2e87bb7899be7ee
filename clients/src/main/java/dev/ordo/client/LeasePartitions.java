package dev.ordo.client;

import dev.ordo.client.internal.GroupPollLoop;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions of {@code <cluster>.deliveries} a {@link LeaseConsumer} owns, as its group assigns them,
 * and the read positions it commits for them. A partition revoked is handed over: its demand cancelled,
 * its position committed with a hand-over mark, so that the next owner knows that what was in transit to
 * this member was never read by it and may be adopted. A partition assigned: whether its previous owner
 * handed it over so, and its position resolved before any demand goes out (replies must not land before
 * where the consumer reads). A crashed or halted member leaves no mark. The rebalance listener of the
 * consumer's poll loop; poll thread only, but {@link #assignment}.
 */
final class LeasePartitions implements ConsumerRebalanceListener {
  private static final Logger log = LoggerFactory.getLogger(LeasePartitions.class);
  private static final String HANDOFF = "ordo-handoff";
  private static final String RUNNING = "ordo-running";

  private final String requesterId;
  private final String deliveries;
  private final Consumer<byte[], byte[]> consumer;
  private final GroupPollLoop loop;
  private final LeaseDemand demand;
  /** True once the consumer halted: it must leave no trace, as a killed process. */
  private final BooleanSupplier halted;
  /** Each owned partition, and whether its previous owner handed it over cleanly. */
  private final Map<Integer, Boolean> owned = new TreeMap<>();
  private volatile Set<Integer> assignment = Set.of();

  LeasePartitions(String requesterId, String deliveries, Consumer<byte[], byte[]> consumer, GroupPollLoop loop,
      LeaseDemand demand, BooleanSupplier halted) {
    this.requesterId = requesterId;
    this.deliveries = deliveries;
    this.consumer = consumer;
    this.loop = loop;
    this.demand = demand;
    this.halted = halted;
  }

  /** The partitions owned now (poll thread). */
  Set<Integer> owned() {
    return owned.keySet();
  }

  /** A copy of {@link #owned}, for any thread. */
  Set<Integer> assignment() {
    return assignment;
  }

  /** Whether the consumer owns {@code partition} and its previous owner handed it over cleanly. */
  boolean handedOverCleanly(int partition) {
    return owned.getOrDefault(partition, false);
  }

  /** Commits the read position of every owned partition (no hand-over mark). */
  void commit() {
    if (owned.isEmpty() || halted.getAsBoolean()) {
      return;
    }
    consumer.commitAsync(positions(owned.keySet(), false), (o, e) -> {
      if (e != null) {
        log.debug("Committing positions of {} failed: {}", requesterId, e.toString());
      }
    });
  }

  /** The consumer stopped: it owns nothing. */
  void clear() {
    assignment = Set.of();
  }

  private Map<TopicPartition, OffsetAndMetadata> positions(Collection<Integer> partitions, boolean handoff) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (int p : partitions) {
      TopicPartition tp = new TopicPartition(deliveries, p);
      long position = loop.blocking(() -> consumer.position(tp));
      offsets.put(tp, new OffsetAndMetadata(position, handoff ? HANDOFF : RUNNING));
    }
    return offsets;
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    if (halted.getAsBoolean() || partitions.isEmpty()) {
      return;
    }
    Set<Integer> revoked = new HashSet<>();
    partitions.forEach(tp -> revoked.add(tp.partition()));
    demand.cancel(revoked);
    try {
      Map<TopicPartition, OffsetAndMetadata> handover = positions(revoked, true);
      loop.blocking(() -> {
        consumer.commitSync(handover);
        return null;
      });
    } catch (KafkaException e) {
      log.warn("Could not commit the hand-over of partitions {} by {}; items in transit wait for their lease",
          revoked, requesterId, e);
    }
    revoked.forEach(owned::remove);
    assignment = Set.copyOf(owned.keySet());
    log.info("Consumer {} handed over partitions {}; keeps {}", requesterId, revoked, owned.keySet());
    demand.refreshSoon(); // the remaining partitions' shares grew
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    partitions.forEach(tp -> owned.remove(tp.partition()));
    assignment = Set.copyOf(owned.keySet());
    log.warn("Consumer {} lost partitions {} (left the group without handing them over)", requesterId, partitions);
    demand.refreshSoon();
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    if (halted.getAsBoolean() || partitions.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> committed = loop.blocking(() -> consumer.committed(new HashSet<>(partitions)));
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata c = committed.get(tp);
      // Resolve the position before demanding: replies must not land before where we read.
      loop.blocking(() -> consumer.position(tp));
      owned.put(tp.partition(), c != null && HANDOFF.equals(c.metadata()));
    }
    assignment = Set.copyOf(owned.keySet());
    log.info("Consumer {} now owns partitions {}", requesterId, owned.keySet());
    demand.refreshSoon();
  }
}
