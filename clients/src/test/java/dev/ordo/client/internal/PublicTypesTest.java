package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.GiveBackReason;
import dev.ordo.client.QueueItem;
import dev.ordo.client.Semantics;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.ReturnReason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PublicTypesTest {
  private static DeliveredItem delivered(ByteBuffer payload) {
    return DeliveredItem.newBuilder().setItemId("3-42").setLeaseId("L1").setNamespace("ns").setTopic("t")
        .setPriority(7).setAttempt(2).setPayload(payload).setMetadata(ByteBuffer.wrap(new byte[] {9}))
        .setEnqueuedAt(1_000).setLeaseExpiresAt(31_000).setSemantics(DeliverySemantics.AT_MOST_ONCE)
        .setGroupKey("g").setTraceId("tr").setHeaders(ItemHeaders.ofStrings(Map.of("h", "v")).toRecords()).build();
  }

  @Test
  void aDeliveredItemKeepsEveryFieldACallerNeeds() {
    QueueItem item = PublicTypes.item(delivered(ByteBuffer.wrap("body".getBytes(StandardCharsets.UTF_8))));
    assertEquals(new ItemId(3, 42), item.id());
    assertEquals("L1", item.leaseId());
    assertEquals("ns", item.namespace());
    assertEquals("t", item.topic());
    assertEquals(7, item.priority());
    assertEquals(2, item.attempt());
    assertEquals("body", new String(item.payload(), StandardCharsets.UTF_8));
    assertArrayEquals(new byte[] {9}, item.metadata());
    assertEquals(Instant.ofEpochMilli(1_000), item.enqueuedAt());
    assertEquals(Instant.ofEpochMilli(31_000), item.leaseExpiresAt());
    assertEquals(Semantics.AT_MOST_ONCE, item.semantics());
    assertEquals("g", item.groupKey());
    assertEquals("tr", item.traceId());
    assertEquals("v", item.headers().lastString("h"));
  }

  @Test
  void aDeliveredItemWithoutOptionalFieldsHasNullsAndNoHeaders() {
    DeliveredItem bare = delivered(ByteBuffer.wrap(new byte[0]));
    bare.setMetadata(null);
    bare.setGroupKey(null);
    bare.setTraceId(null);
    bare.setHeaders(null);
    QueueItem item = PublicTypes.item(bare);
    assertNull(item.metadata());
    assertNull(item.groupKey());
    assertNull(item.traceId());
    assertTrue(item.headers().isEmpty());
  }

  @Test
  void thePayloadIsTheDecodedArrayWhenWholeAndACopyOfTheRestOtherwise() {
    byte[] whole = {1, 2, 3};
    assertSame(whole, PublicTypes.item(delivered(ByteBuffer.wrap(whole))).payload());
    byte[] backing = {0, 1, 2, 3, 4};
    byte[] slice = PublicTypes.item(delivered(ByteBuffer.wrap(backing, 1, 3))).payload();
    assertArrayEquals(new byte[] {1, 2, 3}, slice);
    assertNotSame(backing, slice);
    assertArrayEquals(whole, PublicTypes.item(delivered(ByteBuffer.wrap(whole).asReadOnlyBuffer())).payload());
  }

  @Test
  void anOutcomeKeepsItsResultDetailLeaseEndAndReasons() {
    CommandOutcome extended = PublicTypes.outcome(new Outcome("1-5", CommandKind.EXTEND, OutcomeResult.APPLIED, null,
        60_000L, null, null, null, null));
    assertEquals(new CommandOutcome(new ItemId(1, 5), CommandOutcome.Command.EXTEND, CommandOutcome.Result.APPLIED,
        null, Instant.ofEpochMilli(60_000), null, null), extended);
    assertTrue(extended.applied());
    CommandOutcome dead = PublicTypes.outcome(new Outcome("1-5", CommandKind.NACK, OutcomeResult.APPLIED, null, null,
        DeadLetterReason.MAX_ATTEMPTS, null, null, null));
    assertEquals("MAX_ATTEMPTS", dead.deadLetterReason());
    CommandOutcome refused = PublicTypes.outcome(new Outcome("1-5", CommandKind.ACK, OutcomeResult.INVALID, "no",
        null, null, null, null, "team-b"));
    assertEquals(CommandOutcome.Result.INVALID, refused.result());
    assertEquals("no", refused.detail());
    assertEquals("team-b", refused.forbiddenNamespace());
  }

  @Test
  void everyWireResultAndCallerCommandHasAPublicCounterpart() {
    for (OutcomeResult r : OutcomeResult.values()) {
      assertEquals(r.name(), CommandOutcome.Result.valueOf(r.name()).name());
    }
    for (CommandOutcome.Command c : CommandOutcome.Command.values()) {
      assertEquals(c.name(), CommandKind.valueOf(c.name()).name());
    }
  }

  @Test
  void reasonsAndSemanticsMapOneToOne() {
    assertEquals(Arrays.stream(ReturnReason.values()).map(Enum::name).toList(),
        Arrays.stream(GiveBackReason.values()).map(Enum::name).toList());
    for (GiveBackReason r : GiveBackReason.values()) {
      assertEquals(r.name(), PublicTypes.reason(r).name());
    }
    for (Semantics s : Semantics.values()) {
      assertEquals(s, PublicTypes.semantics(PublicTypes.semantics(s)));
    }
    assertNull(PublicTypes.semantics((Semantics) null), "unset: the namespace's default");
    assertEquals(Semantics.AT_LEAST_ONCE, PublicTypes.semantics((DeliverySemantics) null));
    assertEquals(List.of(Semantics.AT_LEAST_ONCE, Semantics.AT_MOST_ONCE), List.of(Semantics.values()));
  }
}
