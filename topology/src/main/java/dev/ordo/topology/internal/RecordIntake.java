package dev.ordo.topology.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.Item;
import dev.ordo.schema.Requester;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.serde.SchemaResolutionException;
import dev.ordo.serde.WireFormat;
import dev.ordo.store.PriorityStore;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.TopicMeters;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue task's input records turned into what its {@link QueuePlanner} decides: decoded (an item
 * with its record's Kafka headers joined), a duplicate record of {@code items} skipped, a
 * deduplication ID refused within its window (decisions D57), a purge command handed to the
 * {@link PurgeJobs}, the enqueue answered when its requester asked. Anything undecodable or failing
 * in the planner is dead-lettered with its raw bytes and nothing of it is applied. Owned by the
 * {@code QueueProcessor}, on the stream thread; the effects it returns are applied there.
 */
final class RecordIntake {
  private static final Logger log = LoggerFactory.getLogger(RecordIntake.class);

  /** The header a dead-letter redrive puts on the items it sends back (dev.ordo.client.dlq). */
  static final String REDRIVEN_FROM = "ordo.redriven.from";

  private final WireFormat wire;
  private final ClusterTopics topics;
  private final QueueMetrics metrics;
  private final TopicMeters meters;
  private final int partition;
  private final int deliveriesPartitions;
  private final PriorityStore store;
  private final QueuePlanner planner;
  private final Policies policies;
  private final PurgeJobs purges;
  private final DedupWindow dedup;
  private final Outputs outputs;

  RecordIntake(WireFormat wire, ClusterTopics topics, QueueMetrics metrics, TopicMeters meters, int partition,
      int deliveriesPartitions, PriorityStore store, QueuePlanner planner, Policies policies, PurgeJobs purges,
      DedupWindow dedup, Outputs outputs) {
    this.wire = wire;
    this.topics = topics;
    this.metrics = metrics;
    this.meters = meters;
    this.partition = partition;
    this.deliveriesPartitions = deliveriesPartitions;
    this.store = store;
    this.planner = planner;
    this.policies = policies;
    this.purges = purges;
    this.dedup = dedup;
    this.outputs = outputs;
  }

  /** What the planner decides for one record; null for a duplicate or a record dead-lettered here. */
  Effects plan(Record<byte[], byte[]> record, RecordMetadata meta, long now) {
    try {
      if (meta.topic().equals(topics.items())) {
        return onItemRecord(record, meta, now);
      }
      Command command = wire.decode(OrdoSerdes.COMMAND, record.value());
      if (command.getBody() instanceof dev.ordo.schema.Purge purge) {
        dev.ordo.schema.PurgeProgress started = purges.start(purge, now);
        if (started != null) {
          outputs.publishPurge(started, now);
        }
        return null;
      }
      return planner.onCommand(command, store, now);
    } catch (OrdoSerdeException e) {
      metrics.increment(QueueMetrics.MALFORMED);
      if (e instanceof SchemaResolutionException) {
        metrics.increment(QueueMetrics.SCHEMA_UNRESOLVED);
      }
      outputs.deadLetterRaw(DeadLetterReason.MALFORMED, e.getMessage(), record, meta, now);
    } catch (KafkaException e) {
      throw e; // fencing, migration, store failures: Kafka Streams must handle these
    } catch (RuntimeException e) {
      // A bug of ours must not turn one record into a poison pill that kills the thread forever.
      // Nothing of the plan was applied.
      log.error("Unexpected failure on {}-{}@{}; dead-lettering the record", meta.topic(), meta.partition(),
          meta.offset(), e);
      metrics.increment(QueueMetrics.MALFORMED);
      outputs.deadLetterRaw(DeadLetterReason.INVALID, "internal error: " + e, record, meta, now);
    }
    return null;
  }

  private Effects onItemRecord(Record<byte[], byte[]> record, RecordMetadata meta, long now) {
    if (!store.firstSighting(meta.offset())) {
      metrics.increment(QueueMetrics.DUPLICATE_ENQUEUE);
      return null;
    }
    Item item = wire.decode(OrdoSerdes.ITEM, record.value()); // with its headers as itemOf does, below
    // The record's Kafka headers join the item (toArray() of no headers is a shared empty array).
    Header[] headers = record.headers().toArray();
    if (headers.length == 0) {
      if (!wire.confluent()) {
        store.takingIn(meta.offset(), record.value()); // the item table keeps these bytes as they are
      }
      return planner.onItem(meta.offset(), record.timestamp(), item, store, now);
    }
    item.setHeaders(ItemHeaders.merge(item.getHeaders(), headers));
    if (meters.enabled() && record.headers().lastHeader(REDRIVEN_FROM) != null) {
      meters.redriven(item.getNamespace(), item.getTopic());
    }
    IntakeHeaders intake = IntakeHeaders.of(headers);
    if (intake == null) {
      return planner.onItem(meta.offset(), record.timestamp(), item, store, now);
    }
    return onItemWithId(item, intake, record, meta, now);
  }

  /**
   * An item whose record carries a deduplication ID or asks for an answer (decisions D57): refused
   * when its ID was taken in within its namespace's window (counted, answered with the first item's
   * ID, nothing else: not an error, not a dead letter); else planned as any item, its ID remembered
   * when the queue took it in, and answered with its own ID. The window's writes go to the task's
   * store, in the same transaction as the intake.
   */
  private Effects onItemWithId(Item item, IntakeHeaders intake, Record<byte[], byte[]> record, RecordMetadata meta,
      long now) {
    String ns = item.getNamespace();
    String topic = item.getTopic();
    long windowMs = intake.dedupId() == null ? 0 : DedupRules.windowMs(policies.policy(ns));
    if (windowMs > 0) {
      DedupWindow.First first = dedup.first(ns, topic, item.getGroupKey(), intake.dedupId(), now);
      if (first != null) {
        metrics.increment(QueueMetrics.DEDUP_DUPLICATE);
        meters.duplicate(ns, topic);
        answerEnqueue(intake, meta.offset(), first.offset(), true, now);
        return null;
      }
    }
    Effects effects = planner.onItem(meta.offset(), record.timestamp(), item, store, now);
    if (windowMs > 0 && effects.refusal() == null) {
      int evicted = dedup.remember(ns, topic, item.getGroupKey(), intake.dedupId(), meta.offset(), now, windowMs);
      if (evicted > 0) {
        metrics.add(QueueMetrics.DEDUP_EVICTED, evicted);
      }
      meters.dedupEntries(partition, dedup.size());
    }
    answerEnqueue(intake, meta.offset(), meta.offset(), false, now);
    return effects;
  }

  /** Tells the requester that asked (header ordo.reply.to) which item holds, if one asked and can be reached. */
  private void answerEnqueue(IntakeHeaders intake, long recordOffset, long itemOffset, boolean duplicate, long now) {
    if (intake.replyTo() == null) {
      return;
    }
    if (deliveriesPartitions > 0 && intake.replyTo().partition() >= deliveriesPartitions) {
      metrics.increment(QueueMetrics.UNROUTABLE_REPLY);
      return;
    }
    outputs.send(new Requester(intake.replyTo().requesterId(), intake.replyTo().partition()),
        new dev.ordo.schema.Enqueued(new ItemId(partition, recordOffset).toString(),
            new ItemId(partition, itemOffset).toString(), duplicate),
        true, now);
  }

  /** Forgets the deduplication IDs whose window ended, a bounded step at a time. */
  void expireDedup(long now) {
    int expired = dedup.expire(now, DedupWindow.EXPIRE_STEP);
    if (expired > 0) {
      metrics.add(QueueMetrics.DEDUP_EXPIRED, expired);
      meters.dedupEntries(partition, dedup.size());
    }
  }

  /**
   * The item of a record of the items topic, as the queue takes it in: decoded, with the record's
   * Kafka headers joined to it (toArray() of no headers is a shared empty array, and merge then
   * returns the item's own field: nothing is allocated for an item without headers).
   */
  static Item itemOf(WireFormat wire, byte[] value, org.apache.kafka.common.header.Headers recordHeaders) {
    Item item = wire.decode(OrdoSerdes.ITEM, value);
    Header[] headers = recordHeaders.toArray();
    if (headers.length > 0) {
      item.setHeaders(ItemHeaders.merge(item.getHeaders(), headers));
    }
    return item;
  }
}
