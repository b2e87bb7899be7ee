package dev.ordo.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.client.DeadLetterNow;
import dev.ordo.client.stream.StreamClog.Step;
import dev.ordo.client.stream.internal.ClogGuard;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** What becomes of a record whose handler returned, as the clog guard and its probe say; time is passed in. */
class StreamClogTest {
  private static final int MIN_RECORDS = 5;
  private static final long BACKOFF = 1_000;
  private static final RuntimeException DOWN = new IllegalStateException("downstream is down");

  private final StreamCounters counters = new StreamCounters();
  private final StreamClog clog = new StreamClog(
      new ClogGuard(new ClogGuard.Settings(true, 10_000, MIN_RECORDS, 0.9, BACKOFF, 8 * BACKOFF)), "g", counters);
  private final PartitionWork work = new PartitionWork(new TopicPartition("src", 0), false);

  private static StreamRecord record(long offset) {
    return StreamRecord.of(new ConsumerRecord<>("src", 0, offset, new byte[0], new byte[0]), false);
  }

  /** Fails records at {@code now} until the guard clogs; returns {@code now}. */
  private long clogAt(long now) {
    int failures = 1;
    Step step;
    while ((step = clog.handled(work, record(failures), DOWN, now)) == Step.SETTLE) {
      failures++;
      assertTrue(failures <= MIN_RECORDS, "clogs at the fewest records that can clog");
    }
    assertEquals(Step.CLOG, step);
    assertEquals(MIN_RECORDS, failures);
    assertEquals(ClogState.CLOGGED, clog.state());
    return now;
  }

  @Test
  void failuresAreSettledUntilTheyClogTheStreamThenRunAgainInsteadOfBeingCopied() {
    long clogged = clogAt(10);
    assertEquals(1, counters.clogs.get());
    assertTrue(clog.pausesAll(), "clogged: every partition stays paused");
    assertEquals(Step.REOPEN, clog.handled(work, record(100), DOWN, clogged + 1), "a failure while clogged");
    assertEquals(BACKOFF - 1, clog.pollTimeout(clogged + 1, 5_000), "the poll wakes for the probe");
  }

  @Test
  void theProbeIsTheOneRecordHandedOutAndItsSuccessReopensTheStream() {
    long clogged = clogAt(10);
    assertFalse(clog.probeDue(clogged + BACKOFF - 1));
    assertTrue(clog.probeDue(clogged + BACKOFF));
    clog.startProbing();
    assertEquals(ClogState.PROBING, clog.published());
    assertTrue(clog.wantsProbe());
    assertFalse(clog.pausesAll(), "probing: the probe's partition is fetched");
    clog.probeStarted(work, record(7));
    assertFalse(clog.wantsProbe(), "one probe at a time");
    assertTrue(clog.pausesAll(), "nothing else is fetched while it runs");
    assertEquals(Step.REOPEN, clog.handled(work, record(8), DOWN, clogged + BACKOFF + 1),
        "a record that was running before is not the probe");
    assertEquals(Step.FINISH, clog.handled(work, record(7), null, clogged + BACKOFF + 2));
    assertEquals(ClogState.FLOWING, clog.state());
    assertEquals(1, counters.probes.get());
  }

  @Test
  void aFailedProbeMovesOnThroughTheTiersAndTheNextWaitsLonger() {
    long clogged = clogAt(10);
    assertTrue(clog.probeDue(clogged + BACKOFF));
    clog.startProbing();
    clog.probeStarted(work, record(7));
    long failedAt = clogged + BACKOFF + 5;
    assertEquals(Step.SETTLE_AND_REWIND_ALL, clog.handled(work, record(7), DOWN, failedAt));
    assertEquals(ClogState.CLOGGED, clog.state());
    assertEquals(2 * BACKOFF, clog.pollTimeout(failedAt, 60_000), "twice the backoff");
  }

  @Test
  void aDeadLetterVerdictIsNoSignOfAnOutageEvenFromTheProbe() {
    DeadLetterNow verdict = new DeadLetterNow("bad record");
    for (int i = 0; i < 3 * MIN_RECORDS; i++) {
      assertEquals(Step.SETTLE, clog.handled(work, record(i), verdict, 10));
    }
    assertEquals(ClogState.FLOWING, clog.state());
    long clogged = clogAt(30_000); // past the window: the verdicts no longer count
    assertTrue(clog.probeDue(clogged + BACKOFF));
    clog.startProbing();
    clog.probeStarted(work, record(50));
    assertEquals(Step.SETTLE, clog.handled(work, record(50), verdict, clogged + BACKOFF + 1));
    assertEquals(ClogState.FLOWING, clog.state(), "the handler answered: the stream flows again");
  }

  @Test
  void aProbeOfAPartitionDroppedIsForgottenSoAnotherRecordProbes() {
    long clogged = clogAt(10);
    assertTrue(clog.probeDue(clogged + BACKOFF));
    clog.startProbing();
    clog.probeStarted(work, record(7));
    clog.dropped(new PartitionWork(new TopicPartition("src", 1), false));
    assertFalse(clog.wantsProbe(), "another partition's drop leaves the probe");
    clog.dropped(work);
    assertTrue(clog.wantsProbe());
  }
}
