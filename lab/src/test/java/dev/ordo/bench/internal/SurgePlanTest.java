package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.client.NamespacePolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SurgePlanTest {

  @Test
  void theFleetIsTwiceTheRateOfAAndBOffersTenTimesTheFleet() {
    SurgePlan p = SurgePlan.of(1_000, 30, 20);
    assertEquals(40, p.workers(), "2,000 items/s at 20 ms each");
    assertEquals(2_000, p.capacity(), 1e-9);
    assertEquals(20_000, p.tenantBRate(), 1e-9);
    assertEquals(500, p.inFlight(), "a quarter of a second of the fleet's work");
    assertEquals(Duration.ofSeconds(30), p.surge());
    assertEquals(Duration.ofSeconds(20), p.calm());
  }

  @Test
  void tinyRatesKeepAWholeWorkerAndTheRatiosToTheCapacityItGives() {
    SurgePlan p = SurgePlan.of(5, 1, 1);
    assertEquals(1, p.workers());
    assertEquals(50, p.capacity(), 1e-9);
    assertEquals(500, p.tenantBRate(), 1e-9);
    assertEquals(13, p.inFlight(), "a quarter of a second's work, rounded up");
  }

  @Test
  void bIsAdmittedBelowWhatALeavesSpareAndRefusedAtTwoSecondsOfCapacity() {
    SurgePlan p = SurgePlan.of(1_000, 30, 20);
    NamespacePolicy b = p.tenantBPolicy();
    assertEquals(100, b.admissionRate().perSecond(), 1e-9, "a tenth of the 1,000 items/s A leaves spare");
    assertEquals(10, b.admissionRate().burst());
    assertTrue(p.tenantARate() + b.admissionRate().perSecond() < p.capacity(), "A and admitted B fit in the fleet");
    assertEquals(4_000L, b.maxBacklog());
    assertEquals(SurgePlan.B_SIDELINE_AFTER, b.sidelineAfter());
    assertEquals(b.admissionRate(), b.dispatchRate(), "B is leased at the rate it is admitted");

    NamespacePolicy a = p.tenantAPolicy();
    assertEquals(10 * p.tenantARate(), a.admissionRate().perSecond(), 1e-9, "A's admission never binds");
    assertTrue(a.maxBacklog() >= 10 * p.tenantARate());
    assertNull(a.sidelineAfter());
  }

  @Test
  void bsShareOfTheSpareCapacityIsItsAdmissionAndDispatchRate() {
    NamespacePolicy b = SurgePlan.of(1_000, 30, 20, 0.5).tenantBPolicy();
    assertEquals(500, b.admissionRate().perSecond(), 1e-9);
    assertEquals(50, b.admissionRate().burst());
    assertEquals(b.admissionRate(), b.dispatchRate());
    assertThrows(IllegalArgumentException.class, () -> SurgePlan.of(1_000, 30, 20, 0));
    assertThrows(IllegalArgumentException.class, () -> SurgePlan.of(1_000, 30, 20, 1.5));
  }

  @Test
  void nonsenseSizesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> SurgePlan.of(0, 30, 20));
    assertThrows(IllegalArgumentException.class, () -> SurgePlan.of(10, 0, 20));
  }
}
