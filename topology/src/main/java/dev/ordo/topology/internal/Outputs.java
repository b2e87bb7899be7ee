package dev.ordo.topology.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import dev.ordo.delay.DelayedRecords;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliveredItems;
import dev.ordo.schema.Delivery;
import dev.ordo.schema.ReEntry;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.serde.WireFormat;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueMetrics;
import dev.ordo.topology.TopicMeters;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records a queue task forwards for what its planner decided, other than its stats: answers
 * (before the commit where {@link EarlyAnswers} allows), the items leased by one record or timer run
 * in chunks per requester, dead letters (of stored items and of raw input records), parked items'
 * re-entries into the delay tiers, and purge progress; and the commit asked for when someone waits
 * for an answer. Owned by the {@code QueueProcessor}, on the stream thread; it decides nothing.
 */
final class Outputs {
  private static final Logger log = LoggerFactory.getLogger(Outputs.class);

  /** At most this many items, or about this many payload bytes, go in one deliveries record. */
  static final int MAX_ITEMS_PER_DELIVERY = 200;
  static final int MAX_BYTES_PER_DELIVERY = 256 * 1024;

  private final ProcessorContext<Out, byte[]> context;
  private final WireFormat wire;
  private final ClusterTopics topics;
  private final QueueMetrics metrics;
  private final TopicMeters meters;
  private final EarlyAnswers earlyAnswers;
  private final int partition;
  /** {@link QueueConfig#DLQ_MAX_RECORD_BYTES_CONFIG}. */
  private final int deadLetterMaxBytes;
  /** {@link QueueConfig#REPLY_COMMIT_GAP_CONFIG}: -1 never asks for a commit. */
  private final long replyCommitGapMs;
  /** Paces the commits asked for answers; null: the stream thread's own ({@link CommitPacer#ofCurrentThread}). */
  private final CommitPacer commitPacer;
  /**
   * Items leased while one record or timer run is processed, by requester id, in dispatch order:
   * sent when it ends, several to a record ({@link DeliveredItems}), so a demand served with a
   * hundred items costs one record on {@code deliveries}, not a hundred.
   */
  private final Map<String, Effects.Leased> pendingDeliveries = new LinkedHashMap<>();
  /** Something was sent to a requester that waits for it since the last {@link #flushAnswers}. */
  private boolean answeredUrgently;

  Outputs(ProcessorContext<Out, byte[]> context, WireFormat wire, ClusterTopics topics, QueueMetrics metrics,
      TopicMeters meters, EarlyAnswers earlyAnswers, int partition, int deadLetterMaxBytes, long replyCommitGapMs,
      CommitPacer commitPacer) {
    this.context = context;
    this.wire = wire;
    this.topics = topics;
    this.metrics = metrics;
    this.meters = meters;
    this.earlyAnswers = earlyAnswers;
    this.partition = partition;
    this.deadLetterMaxBytes = deadLetterMaxBytes;
    this.replyCommitGapMs = replyCommitGapMs;
    this.commitPacer = commitPacer;
  }

  /** Items leased to a requester: sent at the next {@link #flushAnswers}, with the others leased until then. */
  void leased(Effects.Leased l) {
    Effects.add(pendingDeliveries, l.requester(), l.items(), l.urgent());
  }

  /**
   * {@code urgent}: the requester waits for this. Such an answer goes at once, outside the
   * transaction, where {@link EarlyAnswers} allows; otherwise with the transaction, and then it asks
   * for a commit (see {@link #flushAnswers}).
   */
  void send(Requester requester, Object body, boolean urgent, long now) {
    Delivery delivery = new Delivery(requester.getId(), body);
    byte[] key = requester.getId().getBytes(StandardCharsets.UTF_8);
    byte[] value = wire.encode(OrdoSerdes.DELIVERY, topics.deliveries(), delivery);
    if (earlyAnswers.trySend(urgent, body, topics.deliveries(), requester.getReplyPartition(), key, value)) {
      return;
    }
    context.forward(new Record<>(new Out(topics.deliveries(), requester.getReplyPartition(), key), value, now));
    metrics.increment(QueueMetrics.COMMITTED_ANSWERS);
    answeredUrgently |= urgent;
  }

  /**
   * Sends the items leased by this record or timer run, and when someone waits for what was
   * answered (an urgent command or demand) asks for a commit: under exactly-once an answer is visible
   * only once committed.
   */
  void flushAnswers(long now) {
    sendPendingDeliveries(now);
    if (answeredUrgently) {
      answeredUrgently = false;
      askCommitForAnswer(now);
    }
  }

  /**
   * Someone waits for what was just sent, and under exactly-once it is visible only once committed:
   * ask for a commit at the end of this batch of records rather than at the next commit interval, as
   * often as the stream thread's {@link CommitPacer} allows: at most once per
   * {@link QueueConfig#REPLY_COMMIT_GAP_CONFIG}, and less often while commits take longer (decisions
   * D19). Only for requesters that said they wait ({@code Command.urgent}): asked for every answer, a
   * lease consumer's stream of demands and acks made a busy thread commit every 5 ms and halved its
   * throughput.
   */
  private void askCommitForAnswer(long now) {
    if (pacer().ask(now, replyCommitGapMs)) {
      context.commit();
    }
  }

  private CommitPacer pacer() {
    return commitPacer != null ? commitPacer : CommitPacer.ofCurrentThread();
  }

  /** Sends the items leased since the last call: one record per requester and chunk. */
  private void sendPendingDeliveries(long now) {
    if (pendingDeliveries.isEmpty()) {
      return;
    }
    for (Effects.Leased l : pendingDeliveries.values()) {
      List<DeliveredItem> items = l.items();
      int from = 0;
      while (from < items.size()) {
        int to = from;
        int bytes = 0;
        while (to < items.size() && to - from < MAX_ITEMS_PER_DELIVERY
            && (to == from || bytes + size(items.get(to)) <= MAX_BYTES_PER_DELIVERY)) {
          bytes += size(items.get(to));
          to++;
        }
        send(l.requester(), to - from == 1 ? items.get(from) : new DeliveredItems(new ArrayList<>(items.subList(from, to))),
            l.urgent(), now);
        from = to;
      }
    }
    pendingDeliveries.clear();
  }

  /** The bytes a delivered item adds to a deliveries record, about: its payload and headers. */
  private static int size(DeliveredItem item) {
    return item.getPayload().remaining()
        + (item.getHeaders() == null ? 0 : ItemHeaders.recordsSizeBytes(item.getHeaders()));
  }

  /**
   * Sends a PARKED item's re-entry through the delay tiers: into the tier the planner chose. The
   * forwarders route it on and deliver it to {@code commands} on this partition.
   */
  void park(Effects.Park p, long now) {
    String id = new ItemId(partition, p.offset()).toString();
    byte[] key = id.getBytes(StandardCharsets.UTF_8);
    Command reEntry = Command.newBuilder()
        .setRequester(null)
        .setSentAt(now)
        .setBody(new ReEntry(id, p.dueAt()))
        .build();
    context.forward(new Record<>(new Out(topics.delayTier(p.tier()), null, key),
        OrdoSerdes.DELAYED_RECORD.encode(DelayedRecords.envelope(topics.commands(), partition, key,
            OrdoSerdes.COMMAND.encode(reEntry), null, p.dueAt(), now)), now));
  }

  /** A purge job's progress on this partition, on the compacted {@code <cluster>.purges} (key {@code <job>/<partition>}). */
  void publishPurge(dev.ordo.schema.PurgeProgress progress, long now) {
    byte[] key = (progress.getJobId() + "/" + partition).getBytes(StandardCharsets.UTF_8);
    context.forward(new Record<>(new Out(topics.purges(), null, key), OrdoSerdes.PURGE_PROGRESS.encode(progress), now));
  }

  void deadLetter(Effects.DeadLetter d, long now) {
    metrics.increment(QueueMetrics.DEAD_LETTERED);
    String id = new ItemId(partition, d.offset()).toString();
    StoredItem item = d.item();
    meters.deadLettered(item.getItem().getNamespace(), item.getItem().getTopic(), d.reason());
    List<dev.ordo.schema.AttemptRecord> history = item.getHistory();
    DeadLetter dl = DeadLetter.newBuilder()
        .setReason(d.reason())
        .setDetail(d.detail())
        .setItemId(id)
        .setItem(item.getItem())
        .setAttempts(item.getAttempts())
        .setLastError(history.isEmpty() ? null : history.get(history.size() - 1).getError())
        .setHistory(history)
        .setSourceTopic(topics.items())
        .setSourcePartition(partition)
        .setSourceOffset(d.offset())
        .setDeadAt(now)
        .build();
    // The item's headers also go on the dead letter's record as Kafka headers, for tools that show
    // headers (kcat -J, a stream consumer); the item field keeps them for a redrive.
    RecordHeaders headers = new RecordHeaders();
    if (item.getItem().getHeaders() != null) {
      for (dev.ordo.schema.ItemHeader h : item.getItem().getHeaders()) {
        headers.add(h.getKey(), h.getValue() == null ? null : bytes(h.getValue()));
      }
    }
    context.forward(new Record<>(new Out(topics.dlq(), null, id.getBytes(StandardCharsets.UTF_8)),
        wire.encode(OrdoSerdes.DEAD_LETTER, topics.dlq(), dl), now, headers));
  }

  /**
   * Dead-letters an input record with its raw bytes. A dead letter is larger than the record it
   * carries, and a record Kafka refuses as too large fails the stream thread's transaction (the
   * record would then be read and refused again, forever): over
   * {@link QueueConfig#DLQ_MAX_RECORD_BYTES_CONFIG} it is written without the raw key and value,
   * naming where the record is, counted and logged.
   */
  void deadLetterRaw(DeadLetterReason reason, String detail, Record<byte[], byte[]> record, RecordMetadata meta,
      long now) {
    metrics.increment(QueueMetrics.DEAD_LETTERED);
    DeadLetter.Builder dl = DeadLetter.newBuilder()
        .setReason(reason)
        .setDetail(detail)
        .setRawKey(record.key() == null ? null : ByteBuffer.wrap(record.key()))
        .setRawValue(record.value() == null ? null : ByteBuffer.wrap(record.value()))
        .setSourceTopic(meta.topic())
        .setSourcePartition(meta.partition())
        .setSourceOffset(meta.offset())
        .setItemId(meta.topic().equals(topics.items()) ? new ItemId(meta.partition(), meta.offset()).toString() : null)
        .setDeadAt(now);
    byte[] key = record.key();
    byte[] value = wire.encode(OrdoSerdes.DEAD_LETTER, topics.dlq(), dl.build());
    // The record's Kafka headers (an item's traceparent, ...) go with it, so nothing of it is lost.
    Header[] recordHeaders = record.headers().toArray();
    int headerBytes = 0;
    for (Header h : recordHeaders) {
      headerBytes += h.key().getBytes(StandardCharsets.UTF_8).length + (h.value() == null ? 0 : h.value().length);
    }
    int size = value.length + (key == null ? 0 : key.length) + headerBytes;
    if (size > deadLetterMaxBytes) {
      String where = meta.topic() + "-" + meta.partition() + "@" + meta.offset();
      log.error("The dead letter of {} would be {} bytes, over {} ({}): written without the record's raw key and value",
          where, size, deadLetterMaxBytes, QueueConfig.DLQ_MAX_RECORD_BYTES_CONFIG);
      metrics.increment(QueueMetrics.DEAD_LETTER_TRIMMED);
      dl.setRawKey(null).setRawValue(null).setDetail(detail + " (the record's raw key and value, " + size
          + " bytes with the dead letter, are left out: over " + QueueConfig.DLQ_MAX_RECORD_BYTES_CONFIG + "="
          + deadLetterMaxBytes + "; the record is at " + where + ")");
      key = where.getBytes(StandardCharsets.UTF_8);
      value = wire.encode(OrdoSerdes.DEAD_LETTER, topics.dlq(), dl.build());
      recordHeaders = new Header[0];
    }
    context.forward(new Record<>(new Out(topics.dlq(), null, key), value, now, new RecordHeaders(recordHeaders)));
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
