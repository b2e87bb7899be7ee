package dev.ordo.client.dlq.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.dlq.DeadLetterId;
import dev.ordo.client.dlq.DeadLetters;
import dev.ordo.client.stream.RetryHeaders;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DlqJob;
import dev.ordo.schema.DlqJobKind;
import dev.ordo.schema.DlqMark;
import dev.ordo.schema.Item;
import dev.ordo.serde.OrdoSerdes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Utils;

/**
 * What a job does with one record of {@code <cluster>.dlq}: pure, from the job, the dead letter, its
 * mark and the time.
 *
 * <ul>
 *   <li>{@link Ignore}: not selected (another filter or another ID);</li>
 *   <li>{@link Skip}: selected, but redriven or purged before (it has a mark), or nothing can be sent back;</li>
 *   <li>{@link Send}: a redrive writes this record (a fresh item on {@code <cluster>.items}, or a dead
 *       record's raw key and value back to its source topic) and marks the dead letter REDRIVEN;</li>
 *   <li>{@link Purge}: a purge marks it PURGED.</li>
 * </ul>
 */
public final class Redrives {
  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // builders read schema defaults before any codec may have loaded
  }

  private Redrives() {}

  public sealed interface Step permits Ignore, Skip, Send, Purge {}

  public record Ignore() implements Step {}

  public record Skip(String why) implements Step {}

  public record Send(ProducerRecord<byte[], byte[]> record) implements Step {}

  public record Purge() implements Step {}

  /**
   * @param letter the decoded dead letter, or null when the record is not one
   * @param headers the dead-letter record's headers (a stream consumer's carry the record's own)
   * @param itemPartitions the partition count of {@code <cluster>.items} (a group's items go to its partition)
   */
  public static Step decide(DlqJob job, DeadLetterId id, DeadLetter letter, Headers headers, Optional<DlqMark> mark,
      ClusterTopics topics, int itemPartitions, long nowMs) {
    if (!selected(job, id, letter)) {
      return new Ignore();
    }
    if (mark.isPresent()) {
      return new Skip("already " + mark.get().getState().name().toLowerCase(java.util.Locale.ROOT)
          + " by job " + mark.get().getJob());
    }
    if (job.getKind() == DlqJobKind.PURGE) {
      return new Purge();
    }
    if (letter == null) {
      return new Skip("not a dead letter");
    }
    Item old = letter.getItem();
    if (old != null) {
      return new Send(itemRecord(job, id, old, topics, itemPartitions, nowMs));
    }
    String source = letter.getSourceTopic();
    if (letter.getRawValue() == null || source == null) {
      return new Skip("nothing to send back: no item and no raw record");
    }
    if (source.equals(topics.items()) || source.equals(topics.commands())) {
      return new Skip("a malformed record of " + source + " would only be dead-lettered again");
    }
    RecordHeaders out = new RecordHeaders();
    for (Header h : headers) {
      if (!RetryHeaders.ALL.contains(h.key()) && !h.key().startsWith("ordo.redrive")) {
        out.add(h.key(), h.value());
      }
    }
    link(out, job, id);
    return new Send(new ProducerRecord<>(source, null, bytes(letter.getRawKey()), bytes(letter.getRawValue()), out));
  }

  /** Whether the job selects this record: by ID, or by its filter. */
  static boolean selected(DlqJob job, DeadLetterId id, DeadLetter letter) {
    if (!job.getIds().isEmpty()) {
      return job.getIds().contains(id.toString());
    }
    return Conversions.matches(Conversions.fromRecord(job.getFilter()), letter);
  }

  /**
   * The redriven item: the old one's fields (payload, metadata as it was when it died, priority,
   * lease, TTL, semantics, attempts limit, group key, trace id) with the job's overrides, due now
   * or after the job's delay; attempts start again because it is a new item with a new ID.
   */
  static ProducerRecord<byte[], byte[]> itemRecord(DlqJob job, DeadLetterId id, Item old, ClusterTopics topics,
      int itemPartitions, long nowMs) {
    Item item = Item.newBuilder(old)
        .setNamespace(job.getTargetNamespace() != null ? job.getTargetNamespace() : old.getNamespace())
        .setTopic(job.getTargetTopic() != null ? job.getTargetTopic() : old.getTopic())
        .setPriority(job.getPriority() != null ? job.getPriority() : old.getPriority())
        .setDeliverAfter(job.getDelayMs() != null && job.getDelayMs() > 0 ? nowMs + job.getDelayMs() : null)
        .build();
    byte[] key = item.getGroupKey() == null ? null : item.getGroupKey().getBytes(StandardCharsets.UTF_8);
    Integer partition = key == null ? null : Utils.toPositive(Utils.murmur2(key)) % itemPartitions;
    RecordHeaders headers = new RecordHeaders();
    link(headers, job, id);
    return new ProducerRecord<>(topics.items(), partition, key, OrdoSerdes.ITEM.encode(item), headers);
  }

  private static void link(RecordHeaders headers, DlqJob job, DeadLetterId id) {
    headers.add(DeadLetters.REDRIVEN_FROM_HEADER, id.toString().getBytes(StandardCharsets.UTF_8));
    headers.add(DeadLetters.REDRIVE_JOB_HEADER, job.getId().getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] bytes(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    return Conversions.bytes(b);
  }
}
