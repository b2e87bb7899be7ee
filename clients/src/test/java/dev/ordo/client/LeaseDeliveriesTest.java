package dev.ordo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.client.LeaseDeliveries.Route;
import org.junit.jupiter.api.Test;

/** Whose a delivered item is: the consumer's own, one to adopt from a member that handed over, or neither. */
class LeaseDeliveriesTest {
  private static final String SELF = "workers/m-aaa";
  private final LeaseDeliveries deliveries = new LeaseDeliveries(SELF, "workers");

  @Test
  void anItemSentToThisConsumerIsItsOwnWhateverItsLease() {
    assertEquals(Route.OWN, deliveries.route(SELF, false, 0, 5_000, 10_000));
  }

  @Test
  void anItemInTransitToAMemberThatHandedOverCleanlyIsAdoptedWhileItsLeaseHasTimeLeft() {
    assertEquals(Route.ADOPT, deliveries.route("workers/m-bbb", true, 30_000, 5_000, 10_000));
    assertEquals(Route.SKIP, deliveries.route("workers/m-bbb", false, 30_000, 5_000, 10_000),
        "no hand-over mark: the member may have read it (a crash)");
  }

  @Test
  void anItemAboutToComeBackAnywayIsNotAdopted() {
    long now = 10_000;
    assertEquals(Route.SKIP, deliveries.route("workers/m-bbb", true, now + LeaseDeliveries.ADOPT_MIN_LEASE_LEFT_MS,
        5_000, now));
    assertEquals(Route.ADOPT, deliveries.route("workers/m-bbb", true,
        now + LeaseDeliveries.ADOPT_MIN_LEASE_LEFT_MS + 1, 5_000, now));
    assertEquals(Route.SKIP, deliveries.route("workers/m-bbb", true, 5_000, 5_000, 1_000),
        "a lease that ended by the time it was delivered");
  }

  @Test
  void requestersOutsideTheGroupAreNeverAdoptedFrom() {
    assertEquals(Route.SKIP, deliveries.route("other/m-bbb", true, 30_000, 5_000, 10_000), "another group");
    assertEquals(Route.SKIP, deliveries.route("workers/m-bbb/x", true, 30_000, 5_000, 10_000), "not a member id");
    assertEquals(Route.SKIP, deliveries.route("workers/dequeuer", true, 30_000, 5_000, 10_000),
        "a plain client of the same name");
  }
}
