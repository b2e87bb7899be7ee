package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.AttemptRecord;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.junit.jupiter.api.Test;

/** The item life cycle, alone: pure functions of the item, the command and the time. */
class LifecycleTest {
  private static final long NOW = 1_000_000;
  private static final QueueDefaults DEFAULTS = new QueueDefaults(30_000, 5, null, 60_000);
  private static final Requester HOLDER = new Requester("c1", 0);

  private static Item.Builder item() {
    return Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(3)
        .setPayload(ByteBuffer.wrap("p".getBytes(StandardCharsets.UTF_8)));
  }

  private static StoredItem leased(int attempts, int maxAttempts) {
    StoredItem ready = Lifecycle.admit(item().setMaxAttempts(maxAttempts).build(), NOW - 500, NOW - 500, DEFAULTS);
    StoredItem s = ready;
    for (int i = 0; i < attempts; i++) {
      s = Lifecycle.lease(StoredItem.newBuilder(s).setState(ItemState.READY).build(), "a" + (i + 1), HOLDER, NOW - 100);
    }
    return s;
  }

  @Test
  void aTransitionCarriesEveryFieldAndSharesTheItemInsteadOfCopyingIt() {
    StoredItem s = StoredItem.newBuilder()
        .setItem(item().setGroupKey("g").build())
        .setState(ItemState.LEASED)
        .setAttempts(2)
        .setEnqueuedAt(NOW - 9)
        .setReadyAt(NOW - 8)
        .setLeaseDurationMs(7)
        .setMaxAttempts(6)
        .setSemantics(DeliverySemantics.AT_MOST_ONCE)
        .setExpiresAt(NOW + 5)
        .setLeaseId("a2")
        .setLeasedAt(NOW - 4)
        .setLeaseExpiresAt(NOW + 3)
        .setLeaseHolder(HOLDER)
        .setSidelined(true)
        .setSlot(42)
        .setFlat(true)
        .setHistory(List.of(new AttemptRecord(1, NOW - 7, NOW - 6, "NACK", "boom")))
        .setOrdered(true)
        .build();
    StoredItem copied = Lifecycle.copy(s).build();
    for (Schema.Field f : StoredItem.getClassSchema().getFields()) {
      // A field the fixture leaves at its default would pass whether or not copy() carries it.
      if (f.hasDefaultValue()) {
        assertNotEquals(SpecificData.get().getDefaultValue(f), s.get(f.pos()),
            () -> "give " + f.name() + " a value other than its default here");
      }
      assertEquals(s.get(f.pos()), copied.get(f.pos()), () -> f.name() + " was not carried");
    }
    assertSame(s.getItem(), copied.getItem(), "the item (and its payload) is shared, not deep-copied");
    assertSame(s.getItem(), Lifecycle.extend(s, 1_000, NOW).getItem());
  }

  @Test
  void admitFillsWhatTheItemLeavesEmptyFromTheDefaults() {
    StoredItem s = Lifecycle.admit(item().build(), NOW - 20, NOW, DEFAULTS);
    assertEquals(ItemState.READY, s.getState());
    assertEquals(30_000, s.getLeaseDurationMs());
    assertEquals(5, s.getMaxAttempts());
    assertEquals(DeliverySemantics.AT_LEAST_ONCE, s.getSemantics());
    assertNull(s.getExpiresAt(), "no TTL by default");
    assertEquals(NOW - 20, s.getEnqueuedAt(), "enqueued when appended");
    assertEquals(NOW, s.getReadyAt());
    assertEquals(0, s.getAttempts());

    StoredItem own = Lifecycle.admit(item().setLeaseDurationMs(5L).setMaxAttempts(1).setTtlMs(100L)
        .setDeliverySemantics(DeliverySemantics.AT_MOST_ONCE).build(), NOW - 20, NOW, DEFAULTS);
    assertEquals(5, own.getLeaseDurationMs());
    assertEquals(1, own.getMaxAttempts());
    assertEquals(NOW - 20 + 100, own.getExpiresAt(), "TTL counts from the enqueue");
    assertEquals(DeliverySemantics.AT_MOST_ONCE, own.getSemantics());
  }

  @Test
  void aDeliverAfterWaitsInTheStoreOrTheTiersByHowFarAwayItIs() {
    assertEquals(ItemState.DELAYED, Lifecycle.admit(item().setDeliverAfter(NOW + 59_999).build(), NOW, NOW, DEFAULTS).getState());
    StoredItem far = Lifecycle.admit(item().setDeliverAfter(NOW + 60_000).build(), NOW, NOW, DEFAULTS);
    assertEquals(ItemState.PARKED, far.getState(), "from parkAfterMs on, the tiers");
    assertEquals(NOW + 60_000, far.getReadyAt());
    assertEquals(ItemState.READY, Lifecycle.admit(item().setDeliverAfter(NOW).build(), NOW, NOW, DEFAULTS).getState(),
        "a time already reached is ready");
  }

  @Test
  void aParkedItemReentersReadyWhenDueElseDelayedForTheLastStretch() {
    StoredItem parked = Lifecycle.admit(item().setDeliverAfter(NOW + 90_000).build(), NOW, NOW, DEFAULTS);
    assertEquals(ItemState.READY, Lifecycle.reenter(parked, NOW + 90_000, NOW + 90_000).getState());
    StoredItem early = Lifecycle.reenter(parked, NOW + 90_000, NOW + 89_000);
    assertEquals(ItemState.DELAYED, early.getState());
    assertEquals(NOW + 90_000, early.getReadyAt());
    assertEquals(ItemState.READY, Lifecycle.due(early).getState());
  }

  @Test
  void leaseCountsAnAttemptAndOnlyTheCurrentLeaseHoldsIt() {
    StoredItem s = leased(1, 5);
    assertEquals(ItemState.LEASED, s.getState());
    assertEquals(1, s.getAttempts());
    assertEquals(NOW - 100 + 30_000, s.getLeaseExpiresAt());
    assertEquals(HOLDER, s.getLeaseHolder());
    assertTrue(Lifecycle.holds(s, "a1"));
    assertFalse(Lifecycle.holds(s, "a2"));
    assertFalse(Lifecycle.holds(s, null));
    assertEquals(NOW + 7, Lifecycle.extend(s, 7, NOW).getLeaseExpiresAt());
  }

  @Test
  void releaseGivesTheAttemptBackAndKeepsTheItemsPlace() {
    StoredItem s = leased(2, 5);
    StoredItem released = Lifecycle.release(s, NOW);
    assertEquals(ItemState.READY, released.getState());
    assertEquals(1, released.getAttempts());
    assertEquals(s.getReadyAt(), released.getReadyAt(), "back at its old place in the ready order");
    assertNull(released.getLeaseId());
    assertEquals("RELEASED", released.getHistory().get(released.getHistory().size() - 1).getOutcome());
  }

  @Test
  void nackRetriesAfterItsDelayReplacesMetadataAndRecordsTheError() {
    StoredItem s = leased(1, 5);
    Decision now = Lifecycle.nack(s, 0, null, "e1", false, NOW, DEFAULTS.parkAfterMs());
    StoredItem again = assertInstanceOf(Decision.Keep.class, now).item();
    assertEquals(ItemState.READY, again.getState());
    assertEquals(s.getReadyAt(), again.getReadyAt());
    assertEquals("e1", again.getHistory().get(0).getError());
    assertNull(again.getLeaseHolder());

    ByteBuffer meta = ByteBuffer.wrap("m".getBytes(StandardCharsets.UTF_8));
    StoredItem later = ((Decision.Keep) Lifecycle.nack(s, 5_000, meta, null, false, NOW, DEFAULTS.parkAfterMs())).item();
    assertEquals(ItemState.DELAYED, later.getState());
    assertEquals(NOW + 5_000, later.getReadyAt());
    assertEquals(meta, later.getItem().getMetadata());
    StoredItem parked = ((Decision.Keep) Lifecycle.nack(s, 60_000, null, null, false, NOW, DEFAULTS.parkAfterMs())).item();
    assertEquals(ItemState.PARKED, parked.getState());
  }

  @Test
  void nackDeadLettersWhenAskedOrOnTheLastAttempt() {
    Decision asked = Lifecycle.nack(leased(1, 5), 0, null, "poison", true, NOW, DEFAULTS.parkAfterMs());
    Decision.DeadLetter rejected = assertInstanceOf(Decision.DeadLetter.class, asked);
    assertEquals(DeadLetterReason.REJECTED, rejected.reason());
    assertEquals("poison", rejected.detail());

    Decision last = Lifecycle.nack(leased(3, 3), 0, null, null, false, NOW, DEFAULTS.parkAfterMs());
    assertEquals(DeadLetterReason.MAX_ATTEMPTS, assertInstanceOf(Decision.DeadLetter.class, last).reason());
    assertInstanceOf(Decision.Keep.class, Lifecycle.nack(leased(2, 3), 0, null, null, false, NOW, DEFAULTS.parkAfterMs()));
  }

  @Test
  void anExpiredLeaseDropsAtMostOnceItemsAndRedeliversOthersUntilTheLimit() {
    StoredItem atMostOnce = StoredItem.newBuilder(leased(1, 5)).setSemantics(DeliverySemantics.AT_MOST_ONCE).build();
    assertInstanceOf(Decision.Drop.class, Lifecycle.leaseExpired(atMostOnce, NOW, 0, DEFAULTS.parkAfterMs()));

    StoredItem back = ((Decision.Keep) Lifecycle.leaseExpired(leased(1, 5), NOW, 0, DEFAULTS.parkAfterMs())).item();
    assertEquals(ItemState.READY, back.getState());
    assertEquals("LEASE_EXPIRED", back.getHistory().get(0).getOutcome());
    StoredItem delayed = ((Decision.Keep) Lifecycle.leaseExpired(leased(1, 5), NOW, 1_000, DEFAULTS.parkAfterMs())).item();
    assertEquals(ItemState.DELAYED, delayed.getState());
    assertEquals(NOW + 1_000, delayed.getReadyAt());
    Decision last = Lifecycle.leaseExpired(leased(5, 5), NOW, 0, DEFAULTS.parkAfterMs());
    assertEquals(DeadLetterReason.MAX_ATTEMPTS, assertInstanceOf(Decision.DeadLetter.class, last).reason());
  }

  @Test
  void anAtMostOnceItemNackedOrReleasedIsDroppedNeverReadyAgain() {
    StoredItem amo = StoredItem.newBuilder(leased(1, 5)).setSemantics(DeliverySemantics.AT_MOST_ONCE).build();
    assertInstanceOf(Decision.Drop.class, Lifecycle.nack(amo, 0, null, "e", false, NOW, DEFAULTS.parkAfterMs()));
    assertInstanceOf(Decision.Drop.class, Lifecycle.nack(amo, 5_000, null, "e", false, NOW, DEFAULTS.parkAfterMs()));
    assertEquals(DeadLetterReason.REJECTED, assertInstanceOf(Decision.DeadLetter.class,
        Lifecycle.nack(amo, 0, null, "e", true, NOW, DEFAULTS.parkAfterMs())).reason());
    assertInstanceOf(Decision.Drop.class, Lifecycle.released(amo, NOW));
    StoredItem back = assertInstanceOf(Decision.Keep.class, Lifecycle.released(leased(1, 5), NOW)).item();
    assertEquals(ItemState.READY, back.getState(), "an at-least-once item is ready again");
  }

  @Test
  void historyKeepsTheNewestAttempts() {
    StoredItem s = leased(1, 1_000);
    for (int i = 0; i < Lifecycle.MAX_HISTORY + 5; i++) {
      s = Lifecycle.release(s, NOW + i);
      s = Lifecycle.lease(s, "x" + i, HOLDER, NOW + i);
    }
    assertEquals(Lifecycle.MAX_HISTORY, s.getHistory().size());
    assertEquals(NOW + Lifecycle.MAX_HISTORY + 4, s.getHistory().get(Lifecycle.MAX_HISTORY - 1).getEndedAt());
  }
}
