package dev.ordo.topology.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.schema.TopicStats;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.serde.WireFormat;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.ReadyEntry;
import dev.ordo.store.TopicCounts;
import dev.ordo.topology.TopicMeters;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * A queue task's topic stats: which topics changed since their stats last went out (and how many
 * of them are of namespaces with an admission limit, whose stats go out sooner), and their
 * publication on {@code <cluster>.topics} and to the topic meters when {@link Cadence} says so.
 * Owned by the {@code QueueProcessor}, on the stream thread.
 */
final class StatsPublisher {
  private final ProcessorContext<Out, byte[]> context;
  private final WireFormat wire;
  private final ClusterTopics topics;
  private final TopicMeters meters;
  private final int partition;
  private final PriorityStore store;
  private final QueuePlanner planner;
  /** Topics whose stats are due at the next publication. */
  private final Set<TopicRef> dirtyTopics = new LinkedHashSet<>();
  /** How many of {@link #dirtyTopics} belong to namespaces with an admission limit (their stats go out sooner). */
  private int limitedDirty;

  StatsPublisher(ProcessorContext<Out, byte[]> context, WireFormat wire, ClusterTopics topics, TopicMeters meters,
      int partition, PriorityStore store, QueuePlanner planner) {
    this.context = context;
    this.wire = wire;
    this.topics = topics;
    this.meters = meters;
    this.partition = partition;
    this.store = store;
    this.planner = planner;
  }

  /** Changed topics of namespaces with an admission limit wait: their stats go out every {@link Cadence#LIMITED_STATS_MS}. */
  boolean limitedWaiting() {
    return limitedDirty > 0;
  }

  /** A topic whose stats are due at the next publication. */
  void markDirty(TopicRef nsTopic) {
    if (dirtyTopics.add(nsTopic) && planner.rules(nsTopic.namespace()).limitsAdmission()) {
      limitedDirty++;
    }
  }

  /**
   * Publishes the changed topics' stats: every {@code ordo.stats.interval.ms}, and every
   * {@link Cadence#LIMITED_STATS_MS} for the topics of namespaces with an admission rate or backlog limit,
   * whose stats are how the other partitions learn their share (a surge spread over the partitions
   * would otherwise get the whole rate on each of them until the next publication).
   */
  void publish(long now, Cadence cadence) {
    if (cadence.sweep(now)) {
      meters.sweep(); // idle topics' label sets go, even when nothing here changes
    }
    if (dirtyTopics.isEmpty() || store.rebuilding()) {
      return;
    }
    boolean all = cadence.publishAll(now);
    for (Iterator<TopicRef> it = dirtyTopics.iterator(); it.hasNext(); ) {
      TopicRef nsTopic = it.next();
      String ns = nsTopic.namespace();
      String topic = nsTopic.topic();
      if (!all && !planner.rules(ns).limitsAdmission()) {
        continue;
      }
      it.remove();
      byte[] key = (ns + "/" + topic + "/" + partition).getBytes(StandardCharsets.UTF_8);
      TopicCounts c = store.counts(ns, topic);
      byte[] value = null;
      meters.counts(partition, ns, topic, c, c.total() > 0 ? store.oldestReadyAt(ns, topic) : null);
      if (c.total() > 0) {
        List<ReadyEntry> head = store.readyHead(ns, topic, 1);
        value = wire.encode(OrdoSerdes.TOPIC_STATS, topics.topicStats(), TopicStats.newBuilder()
            .setNamespace(ns).setTopic(topic).setPartition(partition)
            .setReady(c.ready()).setDelayed(c.delayed()).setLeased(c.leased()).setParked(c.parked())
            .setOverflow(c.overflow())
            .setArrivalsPerSecond(planner.arrivalsPerSecond(ns, topic, now))
            .setHeadPriority(head.isEmpty() ? null : head.get(0).priority())
            .setOldestReadyAt(store.oldestReadyAt(ns, topic))
            .setUpdatedAt(now)
            .build());
      }
      context.forward(new Record<>(new Out(topics.topicStats(), null, key), value, now));
    }
    // What is left is of namespaces without limits, unless a policy changed meanwhile: count anew.
    limitedDirty = 0;
    for (TopicRef nsTopic : dirtyTopics) {
      if (planner.rules(nsTopic.namespace()).limitsAdmission()) {
        limitedDirty++;
      }
    }
  }
}
