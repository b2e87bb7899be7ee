package dev.ordo.client.dlq.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DlqJob;
import dev.ordo.schema.DlqJobKind;
import dev.ordo.schema.DlqJobStatus;
import dev.ordo.schema.DlqMark;
import dev.ordo.schema.DlqMarkState;
import dev.ordo.serde.OrdoSerdes;
import org.junit.jupiter.api.Test;

class DlqStateTest {
  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // builders read schema defaults before any codec may have loaded
  }

  private static DlqJob job(long updates, DlqJobStatus status) {
    return DlqJob.newBuilder().setId("r-1").setKind(DlqJobKind.REDRIVE).setStatus(status).setCreatedAt(0)
        .setUpdatedAt(updates).setUpdates(updates).build();
  }

  @Test
  void aJobRecordWithFewerUpdatesNeverReplacesLaterProgress() {
    DlqState state = new DlqState();
    state.put(job(5, DlqJobStatus.RUNNING));
    state.apply(DlqState.jobKey("r-1"), OrdoSerdes.DLQ_JOB.encode(job(0, DlqJobStatus.PENDING)));
    state.apply(DlqState.jobKey("r-1"), OrdoSerdes.DLQ_JOB.encode(job(3, DlqJobStatus.RUNNING)));
    assertEquals(5, state.job("r-1").orElseThrow().getUpdates(), "replaying its own earlier writes does not step back");
    state.apply(DlqState.jobKey("r-1"), OrdoSerdes.DLQ_JOB.encode(job(6, DlqJobStatus.DONE)));
    assertEquals(DlqJobStatus.DONE, state.job("r-1").orElseThrow().getStatus());
  }

  @Test
  void marksAreReadByDeadLetterAndForeignRecordsIgnored() {
    DlqState state = new DlqState();
    state.apply(DlqState.markKey("0-3"), OrdoSerdes.DLQ_MARK.encode(
        new DlqMark("0-3", DlqMarkState.PURGED, "p-1", 1L, null)));
    state.apply("m/0-4".getBytes(), new byte[] {1, 2, 3});
    state.apply(null, new byte[] {1});
    state.apply("x/1".getBytes(), new byte[] {1});
    assertEquals(DlqMarkState.PURGED, state.mark("0-3").orElseThrow().getState());
    assertTrue(state.mark("0-4").isEmpty());
    state.apply(DlqState.markKey("0-3"), null);
    assertTrue(state.mark("0-3").isEmpty(), "a tombstone removes it");
  }

  @Test
  void aCancelRequestIsReadByJobKeptFirstAndClearedWithTheRest() {
    DlqState state = new DlqState();
    state.apply(DlqState.cancelKey("r-1"), OrdoSerdes.DLQ_CANCEL.encode(new dev.ordo.schema.DlqCancel("r-1", 7L)));
    state.apply(DlqState.cancelKey("r-1"), OrdoSerdes.DLQ_CANCEL.encode(new dev.ordo.schema.DlqCancel("r-1", 9L)));
    state.apply("c/r-2".getBytes(), new byte[] {1, 2});
    assertEquals(7L, state.cancel("r-1").orElseThrow().getRequestedAt(), "the first request counts");
    assertTrue(state.cancel("r-2").isEmpty(), "a foreign value is no request");
    assertTrue(state.mark("r-1").isEmpty() && state.job("r-1").isEmpty(), "a request is neither a job nor a mark");
    state.clear();
    assertTrue(state.cancel("r-1").isEmpty());
    state.apply(DlqState.cancelKey("r-1"), OrdoSerdes.DLQ_CANCEL.encode(new dev.ordo.schema.DlqCancel("r-1", 7L)));
    state.apply(DlqState.cancelKey("r-1"), null);
    assertTrue(state.cancel("r-1").isEmpty(), "a tombstone removes it");
  }
}
