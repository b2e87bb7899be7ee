package dev.ordo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class QueueItemTest {
  private static QueueItem item(byte[] payload, Instant expiresAt) {
    return new QueueItem(new ItemId(0, 1), "L", "ns", "t", 3, 1, payload, null, Instant.EPOCH, expiresAt,
        Semantics.AT_LEAST_ONCE, null, null, null);
  }

  @Test
  void equalByContentOfItsBytes() {
    QueueItem a = item(new byte[] {1, 2}, Instant.EPOCH);
    QueueItem b = item(new byte[] {1, 2}, Instant.EPOCH);
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertNotEquals(a, item(new byte[] {1, 3}, Instant.EPOCH));
  }

  @Test
  void anExtendedLeaseChangesOnlyItsEnd() {
    QueueItem a = item(new byte[] {1}, Instant.EPOCH);
    QueueItem later = a.withLeaseExpiresAt(Instant.ofEpochSecond(60));
    assertEquals(Instant.ofEpochSecond(60), later.leaseExpiresAt());
    assertEquals(a, later.withLeaseExpiresAt(Instant.EPOCH));
  }

  @Test
  void noHeadersAreEmptyHeadersAndTheIdentityIsRequired() {
    assertEquals(ItemHeaders.EMPTY, item(new byte[0], Instant.EPOCH).headers());
    assertThrows(NullPointerException.class, () -> new QueueItem(null, "L", "ns", "t", 0, 1, new byte[0], null,
        Instant.EPOCH, Instant.EPOCH, Semantics.AT_LEAST_ONCE, null, null, null));
  }

  @Test
  void itsTextNamesTheItemNotThePayload() {
    String text = item("secret".getBytes(java.nio.charset.StandardCharsets.UTF_8), Instant.EPOCH).toString();
    assertTrue(text.contains("0-1") && text.contains("6 bytes"), text);
    assertFalse(text.contains("secret"), text);
  }

  @Test
  void anOutcomeIsAppliedOnlyWhenItsResultIs() {
    for (CommandOutcome.Result r : CommandOutcome.Result.values()) {
      assertEquals(r == CommandOutcome.Result.APPLIED, new CommandOutcome(new ItemId(0, 1), CommandOutcome.Command.ACK,
          r, null, null, null, null).applied());
    }
  }
}
