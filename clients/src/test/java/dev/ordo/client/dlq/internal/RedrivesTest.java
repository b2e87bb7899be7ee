package dev.ordo.client.dlq.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.dlq.DeadLetterFilter;
import dev.ordo.client.dlq.DeadLetterId;
import dev.ordo.client.dlq.DeadLetters;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.DlqJob;
import dev.ordo.schema.DlqJobKind;
import dev.ordo.schema.DlqJobStatus;
import dev.ordo.schema.DlqMark;
import dev.ordo.schema.DlqMarkState;
import dev.ordo.schema.Item;
import dev.ordo.serde.OrdoSerdes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class RedrivesTest {
  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // builders read schema defaults before any codec may have loaded
  }

  private static final ClusterTopics TOPICS = new ClusterTopics("c");
  private static final DeadLetterId ID = new DeadLetterId(1, 7);
  private static final long NOW = 1_000_000L;

  static DeadLetter itemLetter(String ns, String topic, DeadLetterReason reason, long deadAt, String groupKey) {
    Item item = Item.newBuilder().setNamespace(ns).setTopic(topic).setPriority(3)
        .setPayload(ByteBuffer.wrap("pay".getBytes(StandardCharsets.UTF_8)))
        .setMetadata(ByteBuffer.wrap("meta".getBytes(StandardCharsets.UTF_8)))
        .setDeliverAfter(5L).setLeaseDurationMs(9_000L).setTtlMs(60_000L)
        .setDeliverySemantics(DeliverySemantics.AT_LEAST_ONCE).setMaxAttempts(4).setGroupKey(groupKey)
        .setTraceId("trace-1").build();
    return DeadLetter.newBuilder().setReason(reason).setItemId("2-40").setItem(item).setAttempts(4)
        .setSourceTopic(TOPICS.items()).setSourcePartition(2).setSourceOffset(40L).setDeadAt(deadAt).build();
  }

  static DlqJob.Builder job(DlqJobKind kind) {
    return DlqJob.newBuilder().setId("r-1").setKind(kind).setStatus(DlqJobStatus.RUNNING).setCreatedAt(0)
        .setUpdatedAt(0).setFilter(Conversions.toRecord(DeadLetterFilter.ANY));
  }

  private static Redrives.Step decide(DlqJob job, DeadLetter letter) {
    return Redrives.decide(job, ID, letter, new RecordHeaders(), Optional.empty(), TOPICS, 4, NOW);
  }

  @Test
  void aRedrivenItemKeepsItsFieldsGetsANewEnqueueAndTheLinkHeaders() {
    DeadLetter letter = itemLetter("shop", "emails", DeadLetterReason.MAX_ATTEMPTS, 10, null);
    Redrives.Send send = assertInstanceOf(Redrives.Send.class, decide(job(DlqJobKind.REDRIVE).build(), letter));
    ProducerRecord<byte[], byte[]> r = send.record();
    assertEquals("c.items", r.topic());
    assertNull(r.partition(), "no group key: any partition");
    Item item = OrdoSerdes.ITEM.decode(r.value());
    assertEquals("shop", item.getNamespace());
    assertEquals("emails", item.getTopic());
    assertEquals(3, item.getPriority());
    assertEquals("pay", StandardCharsets.UTF_8.decode(item.getPayload()).toString());
    assertEquals("meta", StandardCharsets.UTF_8.decode(item.getMetadata()).toString());
    assertNull(item.getDeliverAfter(), "due now, not at the old item's due time");
    assertEquals(9_000L, item.getLeaseDurationMs());
    assertEquals(60_000L, item.getTtlMs());
    assertEquals(4, item.getMaxAttempts());
    assertEquals("trace-1", item.getTraceId());
    assertArrayEquals("1-7".getBytes(StandardCharsets.UTF_8), r.headers().lastHeader(DeadLetters.REDRIVEN_FROM_HEADER).value());
    assertArrayEquals("r-1".getBytes(StandardCharsets.UTF_8), r.headers().lastHeader(DeadLetters.REDRIVE_JOB_HEADER).value());
  }

  @Test
  void overridesAndADelayApplyAndAGroupKeepsItsPartition() {
    DlqJob job = job(DlqJobKind.REDRIVE).setTargetNamespace("ops").setTargetTopic("retry").setPriority(-5)
        .setDelayMs(30_000L).build();
    DeadLetter letter = itemLetter("shop", "emails", DeadLetterReason.REJECTED, 10, "customer-9");
    ProducerRecord<byte[], byte[]> r = ((Redrives.Send) decide(job, letter)).record();
    Item item = OrdoSerdes.ITEM.decode(r.value());
    assertEquals("ops", item.getNamespace());
    assertEquals("retry", item.getTopic());
    assertEquals(-5, item.getPriority());
    assertEquals(NOW + 30_000L, item.getDeliverAfter());
    byte[] key = "customer-9".getBytes(StandardCharsets.UTF_8);
    assertEquals(Utils.toPositive(Utils.murmur2(key)) % 4, r.partition(), "the producer's partition for the group");
    assertArrayEquals(key, r.key());
  }

  @Test
  void aMarkedDeadLetterIsSkippedNeverSentTwice() {
    DlqMark mark = new DlqMark("1-7", DlqMarkState.REDRIVEN, "r-0", 5L, "0-3");
    Redrives.Step step = Redrives.decide(job(DlqJobKind.REDRIVE).build(), ID,
        itemLetter("shop", "emails", DeadLetterReason.MAX_ATTEMPTS, 10, null), new RecordHeaders(), Optional.of(mark),
        TOPICS, 4, NOW);
    assertInstanceOf(Redrives.Skip.class, step);
    DlqMark purged = new DlqMark("1-7", DlqMarkState.PURGED, "p-0", 5L, null);
    assertInstanceOf(Redrives.Skip.class, Redrives.decide(job(DlqJobKind.PURGE).build(), ID,
        itemLetter("shop", "emails", DeadLetterReason.MAX_ATTEMPTS, 10, null), new RecordHeaders(), Optional.of(purged),
        TOPICS, 4, NOW));
  }

  @Test
  void aFilterSelectsByNamespaceTopicReasonAndTime() {
    DeadLetterFilter f = new DeadLetterFilter("shop", "emails", Set.of("MAX_ATTEMPTS", "TTL_EXPIRED"),
        Instant.ofEpochMilli(100), Instant.ofEpochMilli(200));
    DlqJob job = job(DlqJobKind.PURGE).setFilter(Conversions.toRecord(f)).build();
    assertInstanceOf(Redrives.Purge.class, decide(job, itemLetter("shop", "emails", DeadLetterReason.MAX_ATTEMPTS, 100, null)));
    assertInstanceOf(Redrives.Purge.class, decide(job, itemLetter("shop", "emails", DeadLetterReason.TTL_EXPIRED, 199, null)));
    for (DeadLetter other : List.of(
        itemLetter("shop2", "emails", DeadLetterReason.MAX_ATTEMPTS, 150, null),
        itemLetter("shop", "sms", DeadLetterReason.MAX_ATTEMPTS, 150, null),
        itemLetter("shop", "emails", DeadLetterReason.REJECTED, 150, null),
        itemLetter("shop", "emails", DeadLetterReason.MAX_ATTEMPTS, 99, null),
        itemLetter("shop", "emails", DeadLetterReason.MAX_ATTEMPTS, 200, null))) {
      assertInstanceOf(Redrives.Ignore.class, decide(job, other), other.toString());
    }
    assertInstanceOf(Redrives.Ignore.class, decide(job, null), "a record that is no dead letter: only the empty filter");
    assertInstanceOf(Redrives.Purge.class, decide(job(DlqJobKind.PURGE).build(), null));
  }

  @Test
  void idsSelectOnlyThemselves() {
    DlqJob job = job(DlqJobKind.REDRIVE).setFilter(null).setIds(List.of("0-1", "1-7")).build();
    DeadLetter letter = itemLetter("shop", "emails", DeadLetterReason.MAX_ATTEMPTS, 10, null);
    assertInstanceOf(Redrives.Send.class, decide(job, letter));
    assertInstanceOf(Redrives.Ignore.class,
        Redrives.decide(job, new DeadLetterId(1, 8), letter, new RecordHeaders(), Optional.empty(), TOPICS, 4, NOW));
  }

  @Test
  void aDeadRecordGoesBackToItsSourceTopicWithItsOwnHeadersOnly() {
    DeadLetter letter = DeadLetter.newBuilder().setReason(DeadLetterReason.MAX_ATTEMPTS)
        .setRawKey(ByteBuffer.wrap(new byte[] {1})).setRawValue(ByteBuffer.wrap(new byte[] {2, 3}))
        .setSourceTopic("payments").setSourcePartition(0).setSourceOffset(9L).setDeadAt(10).build();
    RecordHeaders headers = new RecordHeaders();
    headers.add("traceparent", new byte[] {7});
    headers.add("ordo.attempt", new byte[] {'3'});
    ProducerRecord<byte[], byte[]> r = ((Redrives.Send) decide(job(DlqJobKind.REDRIVE).build(), letter)).record();
    r = ((Redrives.Send) Redrives.decide(job(DlqJobKind.REDRIVE).build(), ID, letter, headers, Optional.empty(),
        TOPICS, 4, NOW)).record();
    assertEquals("payments", r.topic());
    assertArrayEquals(new byte[] {1}, r.key());
    assertArrayEquals(new byte[] {2, 3}, r.value());
    assertArrayEquals(new byte[] {7}, r.headers().lastHeader("traceparent").value());
    assertNull(r.headers().lastHeader("ordo.attempt"), "the retry headers of its last attempt are left behind");
    assertArrayEquals("1-7".getBytes(StandardCharsets.UTF_8), r.headers().lastHeader(DeadLetters.REDRIVEN_FROM_HEADER).value());

    DeadLetter malformedItem = DeadLetter.newBuilder(letter).setSourceTopic("c.items").build();
    assertInstanceOf(Redrives.Skip.class, decide(job(DlqJobKind.REDRIVE).build(), malformedItem));
    DeadLetter trimmed = DeadLetter.newBuilder(letter).setRawValue(null).build();
    assertInstanceOf(Redrives.Skip.class, decide(job(DlqJobKind.REDRIVE).build(), trimmed));
  }

  @Test
  void aRedrivenItemKeepsItsHeadersInTheItemAndTheRedriveLinkOnlyOnTheRecord() {
    DeadLetter letter = itemLetter("ns", "t", DeadLetterReason.MAX_ATTEMPTS, 10L, null);
    letter.getItem().setHeaders(List.of(
        new dev.ordo.schema.ItemHeader("traceparent", ByteBuffer.wrap("00-ab-cd-01".getBytes(StandardCharsets.UTF_8))),
        new dev.ordo.schema.ItemHeader("tag", null)));
    Redrives.Send send = assertInstanceOf(Redrives.Send.class, decide(job(DlqJobKind.REDRIVE).build(), letter));
    Item sent = OrdoSerdes.ITEM.decode(send.record().value());
    assertEquals(letter.getItem().getHeaders(), sent.getHeaders(), "the item's headers go back with it");
    List<String> recordHeaders = new java.util.ArrayList<>();
    send.record().headers().forEach(h -> recordHeaders.add(h.key()));
    assertEquals(List.of(DeadLetters.REDRIVEN_FROM_HEADER, DeadLetters.REDRIVE_JOB_HEADER), recordHeaders,
        "the record carries only Ordo's own link headers, which the queue does not keep with the item");
  }
}
