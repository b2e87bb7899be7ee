package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which replies are a client's own: its requester ids, {@code <client id>/<incarnation>/<kind><digits>}. */
class RequestChannelTest {
  private static final String PREFIX = "orders-1/2f3a/";

  @Test
  void anIdOfThePrefixTheKindAndDigitsIsOwn() {
    assertTrue(RequestChannel.isOwn(PREFIX, PREFIX + "c17", 'c'));
    assertTrue(RequestChannel.isOwn(PREFIX, PREFIX + "d1", 'd'));
  }

  @Test
  void anotherKindAnotherIncarnationOrAnyTrailingTextIsNot() {
    assertFalse(RequestChannel.isOwn(PREFIX, PREFIX + "c17", 'd'), "another kind");
    assertFalse(RequestChannel.isOwn(PREFIX, "orders-1/9b9b/c17", 'c'), "another incarnation of the same client id");
    assertFalse(RequestChannel.isOwn(PREFIX, PREFIX + "c", 'c'), "no number");
    assertFalse(RequestChannel.isOwn(PREFIX, PREFIX + "c1x", 'c'), "not only digits");
    assertFalse(RequestChannel.isOwn(PREFIX, "orders-1", 'c'), "shorter than the prefix");
  }

  @Test
  void aRequesterPrefixIsTheClientIdAndAHexIncarnation() {
    String prefix = RequestChannel.requesterPrefix("orders-1");
    assertTrue(prefix.matches("orders-1/[0-9a-f]{1,8}/"), prefix);
  }
}
