package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.client.dlq.DeadLetterFilter;
import dev.ordo.client.dlq.DeadLetterSelection;
import dev.ordo.client.dlq.DlqJobView;
import dev.ordo.client.dlq.DlqJobView.Status;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A move task's status from its redrive jobs', and its handle: pure. */
class MoveTasksTest {
  private static DlqJobView job(Status status) {
    return new DlqJobView("r-" + status.name().toLowerCase(java.util.Locale.ROOT), DlqJobView.Kind.REDRIVE, status,
        Instant.EPOCH, Instant.EPOCH, null, null, DeadLetterSelection.filter(new DeadLetterFilter("sqs", "q",
            java.util.Set.of(), null, null)), null, null, null, 1.0, null, 10, 3, 3, 0, null);
  }

  private static String status(Status... statuses) {
    return MoveTasks.status(Arrays.stream(statuses).map(MoveTasksTest::job).toList());
  }

  @Test
  void aTaskIsRunningUntilEveryJobIsOverAndCancelledOnceACancelledJobStopped() {
    assertEquals("RUNNING", status(Status.PENDING));
    assertEquals("RUNNING", status(Status.RUNNING, Status.DONE));
    assertEquals("COMPLETED", status(Status.DONE, Status.DONE));
    assertEquals("CANCELLING", status(Status.CANCELLING, Status.RUNNING), "cancelled: it is no longer RUNNING");
    assertEquals("CANCELLING", status(Status.CANCELLING, Status.CANCELLED));
    assertEquals("CANCELLED", status(Status.CANCELLED, Status.DONE));
    assertEquals("CANCELLED", status(Status.CANCELLED));
    assertEquals("FAILED", status(Status.FAILED, Status.CANCELLING));
    assertEquals("COMPLETED", MoveTasks.status(List.of()), "no job left to show");
  }

  @Test
  void aHandleNamesTheDeadLetterQueueAndTheJobsAndAnythingElseIsResourceNotFound() throws Exception {
    MoveTasks.Handle h = new MoveTasks.Handle(new QueueRef("sqs", "dead"), List.of("r-1", "r-2"));
    assertEquals(h, MoveTasks.Handle.decode(h.encode()));
    for (String bad : new String[] {"", "%%%", "bm9wZQ", "c3FzCmRlYWQK"}) {
      SqsException e = assertThrows(SqsException.class, () -> MoveTasks.Handle.decode(bad), bad);
      assertEquals(SqsError.RESOURCE_NOT_FOUND, e.error(), bad);
    }
  }
}
