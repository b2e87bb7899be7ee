package dev.ordo.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

/**
 * Records written with an older version of a schema are read by today's: a producer still on Item
 * version 1 (no groupKey, no traceId), a command before the urgent flag, an outcome before dead-letter
 * reasons, a stored item before the flat flag.
 */
class SchemaEvolutionTest {
  @Test
  void itemWrittenWithVersionOneIsReadByTheCurrentSchema() throws Exception {
    Schema v1;
    try (InputStream in = getClass().getResourceAsStream("/dev/ordo/schema/history/Item-v1.avsc")) {
      v1 = new Schema.Parser().parse(in);
    }
    assertNull(v1.getField("groupKey"), "version 1 has no groupKey");
    assertNotEquals(SchemaNormalization.parsingFingerprint64(v1),
        SchemaNormalization.parsingFingerprint64(Item.getClassSchema()), "the versions differ on the wire");

    GenericRecord old = new GenericData.Record(v1);
    old.put("namespace", "billing");
    old.put("topic", "invoices");
    old.put("priority", 4);
    old.put("payload", ByteBuffer.wrap("old".getBytes(StandardCharsets.UTF_8)));
    old.put("metadata", null);
    old.put("deliverAfter", null);
    old.put("leaseDurationMs", 1_000L);
    old.put("ttlMs", null);
    old.put("deliverySemantics",
        new GenericData.EnumSymbol(v1.getField("deliverySemantics").schema().getTypes().get(1), "AT_MOST_ONCE"));
    old.put("maxAttempts", 2);
    ByteBuffer buf = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);
    byte[] written = new byte[buf.remaining()];
    buf.get(written);

    Item read = OrdoSerdes.ITEM.decode(written);
    assertEquals("billing", read.getNamespace());
    assertEquals("invoices", read.getTopic());
    assertEquals(4, read.getPriority());
    assertEquals("old", StandardCharsets.UTF_8.decode(read.getPayload()).toString());
    assertEquals(1_000L, read.getLeaseDurationMs());
    assertEquals(DeliverySemantics.AT_MOST_ONCE, read.getDeliverySemantics());
    assertEquals(2, read.getMaxAttempts());
    assertNull(read.getGroupKey(), "a field new in version 2 takes its default");
    assertNull(read.getTraceId());
  }

  /**
   * A stored item written before the flat flag (StoredItem v3) reads as queued: where the index of
   * its version put a keyed READY item, in its group's queue (decisions D48).
   */
  @Test
  void storedItemWrittenWithVersionThreeIsReadAsQueued() throws Exception {
    Schema v3 = HeadersSchemaCompatTest.history("StoredItem-v3.avsc");
    assertNull(v3.getField("flat"), "version 3 has no flat flag");
    StoredItem flat = StoredItem.newBuilder()
        .setItem(Item.newBuilder().setNamespace("shop").setTopic("mails").setPriority(3)
            .setPayload(ByteBuffer.wrap(new byte[] {7})).setGroupKey("bob").build())
        .setState(ItemState.READY).setEnqueuedAt(10).setReadyAt(10).setLeaseDurationMs(1_000).setMaxAttempts(5)
        .setSemantics(DeliverySemantics.AT_LEAST_ONCE).setSlot(3_000_000).setFlat(true).build();

    StoredItem read = OrdoSerdes.STORED_ITEM.decode(HeadersSchemaCompatTest.writtenWith(v3, flat));
    assertFalse(read.getFlat(), "the new field takes its default: queued");
    assertEquals(StoredItem.newBuilder(flat).setFlat(false).build(), read, "every other field as written");
  }

  /**
   * A stored item and a state-log entry written before the ordered flag (StoredItem v4,
   * ItemStateEntry v1) read as not ordered: no older server ordered a group (decisions D60).
   */
  @Test
  void itemsWrittenBeforeTheOrderedFlagReadAsNotOrdered() throws Exception {
    Schema v4 = HeadersSchemaCompatTest.history("StoredItem-v4.avsc");
    assertNull(v4.getField("ordered"), "version 4 has no ordered flag");
    StoredItem ordered = StoredItem.newBuilder()
        .setItem(Item.newBuilder().setNamespace("shop").setTopic("mails").setPriority(3)
            .setPayload(ByteBuffer.wrap(new byte[] {7})).setGroupKey("bob").build())
        .setState(ItemState.READY).setEnqueuedAt(10).setReadyAt(10).setLeaseDurationMs(1_000).setMaxAttempts(5)
        .setSemantics(DeliverySemantics.AT_LEAST_ONCE).setSlot(3_000_000).setFlat(true).setOrdered(true).build();
    StoredItem read = OrdoSerdes.STORED_ITEM.decode(HeadersSchemaCompatTest.writtenWith(v4, ordered));
    assertFalse(read.getOrdered(), "the new field takes its default");
    assertEquals(StoredItem.newBuilder(ordered).setOrdered(false).build(), read, "every other field as written");

    Schema e1 = HeadersSchemaCompatTest.history("ItemStateEntry-v1.avsc");
    assertNull(e1.getField("ordered"));
    dev.ordo.schema.ItemStateEntry entry = dev.ordo.schema.ItemStateEntry.newBuilder().setOffset(42)
        .setState(ItemState.LEASED).setAttempts(1).setEnqueuedAt(10).setReadyAt(10).setLeaseDurationMs(1_000)
        .setMaxAttempts(5).setSemantics(DeliverySemantics.AT_LEAST_ONCE).setOrdered(true).build();
    dev.ordo.schema.ItemStateEntry readEntry =
        OrdoSerdes.ITEM_STATE_ENTRY.decode(HeadersSchemaCompatTest.writtenWith(e1, entry));
    assertFalse(readEntry.getOrdered());
    assertEquals(42, readEntry.getOffset());
    assertEquals(ItemState.LEASED, readEntry.getState());
  }

  @Test
  void commandWrittenWithVersionOneIsReadAsNotUrgent() throws Exception {
    Schema v1;
    try (InputStream in = getClass().getResourceAsStream("/dev/ordo/schema/history/Command-v1.avsc")) {
      v1 = new Schema.Parser().parse(in);
    }
    assertNull(v1.getField("urgent"), "version 1 has no urgent flag");
    GenericRecord requester = new GenericData.Record(v1.getField("requester").schema().getTypes().get(1));
    requester.put("id", "old-client/1/c7");
    requester.put("replyPartition", 2);
    Schema ackSchema = v1.getField("body").schema().getTypes().stream()
        .filter(t -> t.getName().equals("Ack")).findFirst().orElseThrow();
    GenericRecord ack = new GenericData.Record(ackSchema);
    ack.put("itemId", "2-40");
    ack.put("leaseId", "a1-ff");
    GenericRecord old = new GenericData.Record(v1);
    old.put("requester", requester);
    old.put("sentAt", 1_000L);
    old.put("body", ack);
    ByteBuffer buf = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);
    byte[] written = new byte[buf.remaining()];
    buf.get(written);

    dev.ordo.schema.Command read = OrdoSerdes.COMMAND.decode(written);
    assertEquals("old-client/1/c7", read.getRequester().getId());
    assertEquals("2-40", ((dev.ordo.schema.Ack) read.getBody()).getItemId());
    assertEquals(false, read.getUrgent(), "a field new in version 2 takes its default");
  }

  @Test
  void outcomeWrittenWithDeliveryVersionOneIsReadWithoutADeadLetterReason() throws Exception {
    Schema v1;
    try (InputStream in = getClass().getResourceAsStream("/dev/ordo/schema/history/Delivery-v1.avsc")) {
      v1 = new Schema.Parser().parse(in);
    }
    Schema outcomeSchema = v1.getField("body").schema().getTypes().stream()
        .filter(t -> t.getName().equals("Outcome")).findFirst().orElseThrow();
    assertNull(outcomeSchema.getField("deadLetterReason"), "version 1 has no dead-letter reason");
    GenericRecord outcome = new GenericData.Record(outcomeSchema);
    outcome.put("itemId", "1-7");
    outcome.put("command", new GenericData.EnumSymbol(outcomeSchema.getField("command").schema(), "NACK"));
    outcome.put("result", new GenericData.EnumSymbol(outcomeSchema.getField("result").schema(), "APPLIED"));
    GenericRecord old = new GenericData.Record(v1);
    old.put("requesterId", "c1");
    old.put("body", outcome);
    ByteBuffer buf = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);
    byte[] written = new byte[buf.remaining()];
    buf.get(written);

    dev.ordo.schema.Delivery read = OrdoSerdes.DELIVERY.decode(written);
    dev.ordo.schema.Outcome o = (dev.ordo.schema.Outcome) read.getBody();
    assertEquals("1-7", o.getItemId());
    assertEquals(dev.ordo.schema.OutcomeResult.APPLIED, o.getResult());
    assertNull(o.getDeadLetterReason(), "a field new in version 2 takes its default");
  }

  @Test
  void aPolicyWrittenBeforeThePauseIsReadAsAPolicyNotPaused() throws Exception {
    Schema v2 = HeadersSchemaCompatTest.history("NamespacePolicy-v2.avsc");
    assertNull(v2.getField("pausedAt"), "version 2 has no pause");
    dev.ordo.schema.NamespacePolicy policy = dev.ordo.schema.NamespacePolicy.newBuilder().setNamespace("shop")
        .setMaxBacklog(100L).setSidelineAfterMs(5_000L).setUpdatedAt(7L)
        .setPausedAt(9L).setPausedTopics(new java.util.HashMap<>(java.util.Map.of("t", 9L))).setPolicySet(false)
        .build();
    dev.ordo.schema.NamespacePolicy read =
        OrdoSerdes.NAMESPACE_POLICY.decode(HeadersSchemaCompatTest.writtenWith(v2, policy));
    assertEquals(100L, read.getMaxBacklog());
    assertEquals(5_000L, read.getSidelineAfterMs());
    assertNull(read.getPausedAt(), "not paused");
    assertEquals(java.util.Map.of(), read.getPausedTopics());
    assertEquals(true, read.getPolicySet(), "a record of an older server is a policy");
  }

  @Test
  void aPolicyWrittenBeforeDeduplicationIsReadWithTheDefaultWindow() throws Exception {
    Schema v3 = HeadersSchemaCompatTest.history("NamespacePolicy-v3.avsc");
    assertNull(v3.getField("dedupWindowMs"), "version 3 has no deduplication window");
    dev.ordo.schema.NamespacePolicy policy = dev.ordo.schema.NamespacePolicy.newBuilder().setNamespace("shop")
        .setMaxBacklog(100L).setUpdatedAt(7L).setPausedAt(9L).setDedupWindowMs(60_000L).build();
    dev.ordo.schema.NamespacePolicy read =
        OrdoSerdes.NAMESPACE_POLICY.decode(HeadersSchemaCompatTest.writtenWith(v3, policy));
    assertEquals(100L, read.getMaxBacklog());
    assertEquals(9L, read.getPausedAt(), "the pause of version 3 is kept");
    assertNull(read.getDedupWindowMs(), "the default window (5 minutes)");
  }

  /** A dead-letter job written before CANCELLED existed (DlqJob v1, by a server of the version before) is read as it was. */
  @Test
  void aDlqJobWrittenBeforeCancelledExistedIsReadByTheCurrentSchema() throws Exception {
    Schema v1 = HeadersSchemaCompatTest.history("DlqJob-v1.avsc");
    assertFalse(v1.getField("status").schema().getEnumSymbols().contains("CANCELLED"), "version 1 has no CANCELLED");
    dev.ordo.schema.DlqJob job = dev.ordo.schema.DlqJob.newBuilder().setId("r-1")
        .setKind(dev.ordo.schema.DlqJobKind.REDRIVE).setStatus(dev.ordo.schema.DlqJobStatus.RUNNING)
        .setCreatedAt(1).setUpdatedAt(2).setRatePerSecond(5.0).setHandled(3).setUpdates(4)
        .setRanges(java.util.List.of(new dev.ordo.schema.DlqRange(0, 3L, 10L))).build();
    dev.ordo.schema.DlqJob read = OrdoSerdes.DLQ_JOB.decode(HeadersSchemaCompatTest.writtenWith(v1, job));
    assertEquals(job, read, "every field as written");
  }

  @Test
  void aPolicyWrittenBeforeTopicWeightsAndOrderedGroupsIsReadWithTheirDefaults() throws Exception {
    Schema v4 = HeadersSchemaCompatTest.history("NamespacePolicy-v4.avsc");
    assertNull(v4.getField("topicWeights"), "version 4 has no topic weights");
    dev.ordo.schema.NamespacePolicy policy = dev.ordo.schema.NamespacePolicy.newBuilder().setNamespace("shop")
        .setMaxBacklog(100L).setUpdatedAt(7L).setDedupWindowMs(60_000L).setTopicWeights(java.util.Map.of("a", 3.0))
        .setOrdered(true).setShards(2).build();
    dev.ordo.schema.NamespacePolicy read =
        OrdoSerdes.NAMESPACE_POLICY.decode(HeadersSchemaCompatTest.writtenWith(v4, policy));
    assertEquals(60_000L, read.getDedupWindowMs(), "the window of version 4 is kept");
    assertEquals(java.util.Map.of(), read.getTopicWeights(), "every topic of weight 1");
    assertNull(read.getOrdered(), "not ordered");
    assertEquals(java.util.Map.of(), read.getOrderedTopics());
    assertNull(read.getGroupRate(), "no group rate");
    assertNull(read.getGroupRateOverrides());
    assertNull(read.getShards(), "one partition per group key");
  }

  @Test
  void aDeliveryWrittenBeforeTheEnqueueAnswerIsReadByTheCurrentSchema() throws Exception {
    Schema v5 = HeadersSchemaCompatTest.history("Delivery-v5.avsc");
    assertNull(v5.getField("body").schema().getTypes().stream().filter(t -> t.getName().equals("Enqueued"))
        .findFirst().orElse(null), "version 5 has no Enqueued answer");
    dev.ordo.schema.Outcome outcome = new dev.ordo.schema.Outcome("1-7", dev.ordo.schema.CommandKind.ACK,
        dev.ordo.schema.OutcomeResult.INVALID, null, null, null, null, null, "team-b");
    dev.ordo.schema.Delivery delivery = new dev.ordo.schema.Delivery("c/1", outcome);
    dev.ordo.schema.Delivery read = OrdoSerdes.DELIVERY.decode(HeadersSchemaCompatTest.writtenWith(v5, delivery));
    assertEquals(delivery, read);
  }

  @Test
  void commandsWrittenWithVersionsFourAndFiveAreReadByTheCurrentSchema() throws Exception {
    dev.ordo.schema.Command ack = new dev.ordo.schema.Command(new dev.ordo.schema.Requester("c/1", 3), 1_000L,
        new dev.ordo.schema.Ack("2-40", "a1-ff"), true, null);
    for (String file : new String[] {"Command-v4.avsc", "Command-v5.avsc"}) {
      Schema old = HeadersSchemaCompatTest.history(file);
      dev.ordo.schema.Command read = OrdoSerdes.COMMAND.decode(HeadersSchemaCompatTest.writtenWith(old, ack));
      assertEquals(ack, read, file);
    }
    assertNull(HeadersSchemaCompatTest.history("Command-v5.avsc").getField("body").schema().getTypes().stream()
        .filter(t -> t.getName().equals("Purge")).findFirst().orElse(null), "version 5 has no Purge");
  }
}
