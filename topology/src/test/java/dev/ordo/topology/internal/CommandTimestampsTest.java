package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.CommandOrder;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class CommandTimestampsTest {
  @Test
  void aCommandCountsAsItsTimestampPlusTheLead() {
    assertEquals(1_500L, CommandTimestamps.orderTime(500L, 0L, 1_000L));
    assertEquals(500L, CommandTimestamps.orderTime(500L, 0L, 0L));
  }

  @Test
  void theLeadSaturatesInsteadOfOverflowing() {
    assertEquals(Long.MAX_VALUE, CommandTimestamps.orderTime(Long.MAX_VALUE - 10, 0L, 1_000L));
  }

  @Test
  void aRecordWithoutATimestampKeepsItsPartitionsTime() {
    assertEquals(7_000L, CommandTimestamps.orderTime(-1L, 7_000L, 1_000L));
    assertEquals(0L, CommandTimestamps.orderTime(-1L, -1L, 1_000L), "never a negative time, which would fail the task");
  }

  @Test
  void aCommandThatCannotNeedANewItemKeepsItsTimeWhileTheIntakeIsCurrent() {
    long now = 1_700_000_000_000L;
    long time = now + 1_000; // sent now, the lead of 1 s added
    assertEquals(time, CommandTimestamps.afterALaggingIntake(time, now - 300, now, 1_000),
        "the newest item read is 300 ms old: within the lead");
    assertEquals(time, CommandTimestamps.afterALaggingIntake(time, IntakeClock.NONE, now, 1_000), "no item read yet");
  }

  @Test
  void aCommandThatCannotNeedANewItemGoesRightAfterTheItemsReadWhileTheIntakeLags() {
    long now = 1_700_000_000_000L;
    long newest = now - 11_000; // a burst: the newest item read was enqueued 11 s ago
    assertEquals(newest + 1, CommandTimestamps.afterALaggingIntake(now + 1_000, newest, now, 1_000));
    // An older command keeps its own, earlier time.
    assertEquals(newest - 4_000, CommandTimestamps.afterALaggingIntake(newest - 4_000, newest, now, 1_000));
  }

  @Test
  void theHeaderAndALaggingIntakePutACommandRightAfterTheItemsReadAndNothingElseDoes() {
    long now = 1_700_000_000_000L;
    IntakeClock intake = new IntakeClock();
    CommandTimestamps extractor = new CommandTimestamps(1_000L, intake, () -> now);
    ConsumerRecord<Object, Object> marked = record(now, CommandOrder.first());
    ConsumerRecord<Object, Object> unmarked = record(now, null);
    ConsumerRecord<Object, Object> otherValue = record(now, new byte[] {'x'});
    assertEquals(now + 1_000L, extractor.extract(marked, 0L), "no item read: the lead, as before");

    new ItemTimestamps(intake).extract(record(now - 5_000, null), 0L); // the intake is 5 s behind
    assertEquals(now - 5_000 + 1, extractor.extract(marked, 0L), "right after the newest item read");
    assertEquals(now + 1_000L, extractor.extract(unmarked, 0L), "no header: the lead, as before");
    assertEquals(now + 1_000L, extractor.extract(otherValue, 0L), "a value it does not know: the lead");

    new ItemTimestamps(intake).extract(record(now - 200, null), 0L); // caught up
    assertEquals(now + 1_000L, extractor.extract(marked, 0L), "a current intake: the lead");
  }

  @Test
  void eachPartitionHasItsOwnIntake() {
    IntakeClock intake = new IntakeClock();
    intake.itemRead(0, 1_000L);
    assertEquals(1_000L, intake.newest(0));
    assertEquals(IntakeClock.NONE, intake.newest(1));
    intake.itemRead(0, 500L); // an older timestamp read later does not move it back
    assertEquals(1_000L, intake.newest(0));
  }

  private static ConsumerRecord<Object, Object> record(long timestamp, byte[] order) {
    RecordHeaders headers = new RecordHeaders();
    if (order != null) {
      headers.add(CommandOrder.HEADER, order);
    }
    return new ConsumerRecord<>("c.commands", 0, 0L, timestamp, TimestampType.CREATE_TIME, 0, 0, null, null, headers,
        Optional.empty());
  }

  @Test
  void aNegativeLeadIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new CommandTimestamps(-1, new IntakeClock(), () -> 0L));
  }
}
