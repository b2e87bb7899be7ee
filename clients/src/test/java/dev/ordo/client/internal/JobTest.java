package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeliveredItem;
import org.junit.jupiter.api.Test;

class JobTest {
  private static DeliveredItem leasedAt(long leasedAt, long leaseMs) {
    DeliveredItem item = SelectionTest.item("0-1", "t", 0);
    item.setLeaseExpiresAt(leasedAt + leaseMs);
    return item;
  }

  @Test
  void heartbeatsAtTheFractionOfTheLeaseCountedFromTheQueuesClock() {
    // Leased at 10_000 by the queue's clock, read 100 ms later; lease 1 s.
    Job job = new Job(leasedAt(10_000, 1_000), 0, 10_000, 10_100, 0.5);
    assertEquals(1_000, job.leaseMs());
    assertFalse(job.heartbeatDue(10_499));
    assertTrue(job.heartbeatDue(10_500));
    assertEquals(11_000, job.localExpiry(), "the transit is taken off the local deadline");
    job.heartbeatSent();
    assertFalse(job.heartbeatDue(10_600), "one heartbeat in flight at a time");
    job.extended(10_600);
    assertEquals(11_600, job.localExpiry());
    assertTrue(job.heartbeatDue(11_100));
  }

  @Test
  void aClockSkewedDeliveryStillGetsAtLeastHalfItsLeaseBeforeTheLocalDeadline() {
    // The consumer's clock is 5 s ahead of the queue's: transit looks like 5 s, capped at half the lease.
    Job job = new Job(leasedAt(10_000, 1_000), 0, 10_000, 15_000, 0.5);
    assertEquals(15_500, job.localExpiry());
    assertTrue(job.heartbeatDue(15_000));
  }

  @Test
  void losingTheLeaseInterruptsTheBoundThreadOnceAndNotTheNextJob() throws Exception {
    Job job = new Job(leasedAt(0, 1_000), 0, 0, 0, 0.5);
    job.bind(Thread.currentThread());
    assertTrue(job.lose("cancelled"));
    assertFalse(job.lose("again"));
    assertTrue(Thread.currentThread().isInterrupted());
    job.unbind();
    assertFalse(Thread.currentThread().isInterrupted(), "unbind clears an interrupt meant for this job");
    assertEquals("cancelled", job.lost());
    assertFalse(job.expired(5_000), "a lost lease does not expire again");
  }
}
