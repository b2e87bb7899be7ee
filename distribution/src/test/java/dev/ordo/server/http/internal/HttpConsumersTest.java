package dev.ordo.server.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.server.http.internal.HttpConsumers.HandedOut;
import dev.ordo.server.http.internal.HttpConsumers.Key;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HttpConsumersTest {
  private static final Key JOBS = new Key("shop", "jobs", "workers");

  @Test
  void aDequeueThatEndsWithNothingIsCountedForEachTopicItAsked() {
    HttpConsumers c = new HttpConsumers(10_000);
    List<Key> fresh = c.dequeueStarted("shop", Set.of("jobs", "mails"), "workers", 0);
    assertEquals(Set.of(JOBS, new Key("shop", "mails", "workers")), Set.copyOf(fresh));
    assertEquals(List.of(), c.dequeueStarted("shop", Set.of("jobs"), "workers", 0), "known keys are not fresh");
    c.dequeueEnded("shop", Set.of("jobs", "mails"), "workers", List.of(), 1_000);
    assertEquals(1, c.emptyDequeues(JOBS));
    assertEquals(1, c.emptyDequeues(new Key("shop", "mails", "workers")));
    c.dequeueEnded("shop", Set.of("jobs"), "workers", List.of(new HandedOut("0-1", "jobs", "l1", 60_000)), 1_000);
    assertEquals(1, c.emptyDequeues(JOBS), "a dequeue with an item is not empty");
    assertEquals(0, c.emptyDequeues(new Key("shop", "jobs", "others")), "another group is another key");
  }

  @Test
  void heldItemsWithNobodyWaitingAreBusyAndAWaitingDequeueIsSpare() {
    HttpConsumers c = new HttpConsumers(10_000);
    c.dequeueStarted("shop", Set.of("jobs"), "workers", 0);
    c.dequeueEnded("shop", Set.of("jobs"), "workers", List.of(new HandedOut("0-1", "jobs", "l1", 100_000)), 0);
    assertEquals(1.0, c.busyRatio(JOBS, 10_000), 1e-9, "an item held, no worker waiting");
    c.dequeueStarted("shop", Set.of("jobs"), "workers", 10_000); // another worker waits for work
    assertEquals(0.0, c.busyRatio(JOBS, 20_000), 1e-9, "a worker waiting is spare capacity");
    c.dequeueEnded("shop", Set.of("jobs"), "workers", List.of(), 20_000);
    assertEquals(1.0, c.busyRatio(JOBS, 30_000), 1e-9);
    c.settled("0-1", "l1", 30_000);
    assertEquals(0, c.held(JOBS, 30_000));
    assertTrue(c.busyRatio(JOBS, 35_000) <= 0.5 + 1e-9);
    assertEquals(0.0, c.busyRatio(JOBS, 41_000), 1e-9, "idle a whole window after the ack");
  }

  @Test
  void aSettleOnAnotherLeaseLeavesTheItemHeld() {
    HttpConsumers c = new HttpConsumers(10_000);
    c.dequeueStarted("shop", Set.of("jobs"), "workers", 0);
    c.dequeueEnded("shop", Set.of("jobs"), "workers", List.of(new HandedOut("0-1", "jobs", "l1", 100_000)), 0);
    c.settled("0-1", "old-lease", 1_000);
    assertEquals(1, c.held(JOBS, 1_000));
    c.settled("0-1", null, 2_000); // a cancel names no lease
    assertEquals(0, c.held(JOBS, 2_000));
  }

  @Test
  void aLeaseThatRunsOutEndsTheBusyTimeWhenItRanOut() {
    HttpConsumers c = new HttpConsumers(10_000);
    c.dequeueStarted("shop", Set.of("jobs"), "workers", 0);
    c.dequeueEnded("shop", Set.of("jobs"), "workers", List.of(new HandedOut("0-1", "jobs", "l1", 5_000)), 0);
    assertEquals(0.5, c.busyRatio(JOBS, 10_000), 1e-9, "busy until the lease ran out at 5 s, read later");
    assertEquals(0, c.held(JOBS, 10_000));
  }

  @Test
  void anExtendMovesTheLeaseEnd() {
    HttpConsumers c = new HttpConsumers(10_000);
    c.dequeueStarted("shop", Set.of("jobs"), "workers", 0);
    c.dequeueEnded("shop", Set.of("jobs"), "workers", List.of(new HandedOut("0-1", "jobs", "l1", 5_000)), 0);
    c.extended("0-1", "l1", 20_000, 4_000);
    assertEquals(1, c.held(JOBS, 10_000));
    assertEquals(1.0, c.busyRatio(JOBS, 10_000), 1e-9);
    assertEquals(0, c.held(JOBS, 20_000));
  }

  @Test
  void itemsOfADequeueOfAnyTopicAreHeldUnderAny() {
    HttpConsumers c = new HttpConsumers(10_000);
    Key any = new Key("shop", "*", "workers");
    c.dequeueStarted("shop", Set.of("*"), "workers", 0);
    c.dequeueEnded("shop", Set.of("*"), "workers", List.of(new HandedOut("0-1", "jobs", "l1", 50_000)), 0);
    assertEquals(1, c.held(any, 1_000));
    assertEquals(1.0, c.busyRatio(any, 1_000), 1e-9);
  }
}
