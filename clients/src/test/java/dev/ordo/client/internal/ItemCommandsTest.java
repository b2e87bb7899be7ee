package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.api.ItemId;
import dev.ordo.client.NackOptions;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Nack;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A command's arguments, checked before anything is sent, and the bodies built from them. */
class ItemCommandsTest {
  private static final ItemId ID = new ItemId(3, 42);

  @Test
  void aMissingItemOrLeaseIsRefused() {
    assertEquals("item ID is missing",
        assertThrows(IllegalArgumentException.class, () -> ItemCommands.checkLease(null, "l")).getMessage());
    assertEquals("lease is missing",
        assertThrows(IllegalArgumentException.class, () -> ItemCommands.checkLease(ID, "")).getMessage());
  }

  @Test
  void aNackCarriesItsOptionsAndNeedsThem() {
    Nack nack = ItemCommands.nackBody(ID, "l", NackOptions.retryAfter(Duration.ofSeconds(3)).withError("boom"));
    assertEquals(3_000, nack.getDelayMs());
    assertEquals("boom", nack.getError());
    assertNull(nack.getMetadata());
    assertEquals("nack options are missing",
        assertThrows(IllegalArgumentException.class, () -> ItemCommands.nackBody(ID, "l", null)).getMessage());
  }

  @Test
  void anExtensionMustBePositive() {
    Extend extend = ItemCommands.extendBody(ID, "l", Duration.ofSeconds(30));
    assertEquals(30_000, extend.getLeaseDurationMs());
    assertThrows(IllegalArgumentException.class, () -> ItemCommands.extendBody(ID, "l", Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> ItemCommands.extendBody(ID, "l", null));
  }

  @Test
  void aScopeIsCheckedAndNullMeansAnyNamespace() {
    assertNull(ItemCommands.scope(null));
    assertEquals(List.of("team-a.*", "orders"), ItemCommands.scope(List.of("team-a.*", "orders")));
    assertThrows(IllegalArgumentException.class, () -> ItemCommands.scope(List.of("team-a*.x*")));
  }
}
