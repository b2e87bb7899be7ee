package dev.ordo.client.dlq.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.client.dlq.DeadLetterId;
import dev.ordo.client.dlq.UnknownDeadLetterException;
import dev.ordo.schema.DlqRange;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobRangesTest {
  private final Map<Integer, Long> begins = Map.of(0, 0L, 1, 10L, 2, 0L);
  private final Map<Integer, Long> ends = Map.of(0, 5L, 1, 20L, 2, 0L);

  @Test
  void aFilterCoversEachPartitionFromItsFirstRetainedOffsetToItsEndNow() {
    assertEquals(List.of(new DlqRange(0, 0L, 5L), new DlqRange(1, 10L, 20L), new DlqRange(2, 0L, 0L)),
        JobRanges.forFilter(begins, ends, null));
    assertEquals(25 - 10, JobRanges.remaining(JobRanges.forFilter(begins, ends, null)));
  }

  @Test
  void aFromTimeStartsEachPartitionAtItsFirstRecordThatLateAndSkipsPartitionsWithNone() {
    Map<Integer, Long> from = new HashMap<>();
    from.put(1, 15L);
    assertEquals(List.of(new DlqRange(0, 5L, 5L), new DlqRange(1, 15L, 20L), new DlqRange(2, 0L, 0L)),
        JobRanges.forFilter(begins, ends, from));
  }

  @Test
  void idsCoverTheirPartitionsFromTheSmallestToPastTheLargest() {
    List<DeadLetterId> ids = List.of(new DeadLetterId(1, 17), new DeadLetterId(0, 3), new DeadLetterId(1, 12));
    assertEquals(List.of(new DlqRange(0, 3L, 4L), new DlqRange(1, 12L, 18L)), JobRanges.forIds(ids, begins, ends));
  }

  @Test
  void idsThatNameNoRetainedRecordAreUnknownAllNamed() {
    UnknownDeadLetterException e = assertThrows(UnknownDeadLetterException.class, () -> JobRanges.forIds(
        List.of(new DeadLetterId(0, 5), new DeadLetterId(1, 9), new DeadLetterId(7, 0), new DeadLetterId(0, 1)),
        begins, ends));
    assertEquals(List.of("0-5", "1-9", "7-0"), e.ids());
  }
}
