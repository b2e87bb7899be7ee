package dev.ordo.client.dlq.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.client.dlq.DlqJobView;
import dev.ordo.schema.DlqCancel;
import dev.ordo.schema.DlqJob;
import dev.ordo.schema.DlqJobKind;
import dev.ordo.schema.DlqJobStatus;
import dev.ordo.schema.DlqRange;
import dev.ordo.serde.OrdoSerdes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** Cancelling a dead-letter job: the pure decisions of {@link JobCancels}, and a model of the runner's steps around them. */
class JobCancelsTest {
  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // builders read schema defaults before any codec may have loaded
  }

  private static DlqJob job(DlqJobStatus status, long handled, long updates, long updatedAt) {
    return DlqJob.newBuilder().setId("r-1").setKind(DlqJobKind.REDRIVE).setStatus(status).setCreatedAt(0)
        .setUpdatedAt(updatedAt).setFinishedAt(JobCancels.finished(status) ? updatedAt : null)
        .setRanges(List.of(new DlqRange(0, handled, handled + 7), new DlqRange(1, 0L, 3L)))
        .setScanned(handled + 2).setHandled(handled).setSkipped(2).setUpdates(updates).setRatePerSecond(1.0).build();
  }

  @Property
  void aCancelIsWrittenOnceForAnUnfinishedJobAndRefusedForAFinishedOne(@ForAll DlqJobStatus status,
      @ForAll boolean requestedBefore, @ForAll @LongRange(min = 0, max = 1L << 50) long now) {
    DlqJob j = job(status, 3, 4, 10);
    Optional<DlqCancel> before = requestedBefore ? Optional.of(new DlqCancel("r-1", 5L)) : Optional.empty();
    JobCancels.Decision d = JobCancels.request(j, before, now);
    boolean finished = status == DlqJobStatus.DONE || status == DlqJobStatus.FAILED || status == DlqJobStatus.CANCELLED;
    if (finished) {
      assertEquals(new JobCancels.Finished(status), d, "a finished job has nothing to cancel, requested before or not");
    } else if (requestedBefore) {
      assertEquals(new JobCancels.AlreadyRequested(before.get()), d, "asked again: nothing more written");
    } else {
      assertEquals(new JobCancels.Write(new DlqCancel("r-1", now)), d);
    }
  }

  @Property
  void theRunnerStopsAnUnfinishedJobWithARequestKeepingWhatItDidAndNothingElse(@ForAll DlqJobStatus status,
      @ForAll boolean requested, @ForAll @LongRange(min = 0, max = 1000) long handled,
      @ForAll @LongRange(min = 0, max = 1000) long updates, @ForAll @LongRange(min = 0, max = 1L << 40) long updatedAt,
      @ForAll @LongRange(min = 0, max = 1L << 40) long now) {
    DlqJob j = job(status, handled, updates, updatedAt);
    Optional<DlqJob> stopped = JobCancels.stop(j, requested ? Optional.of(new DlqCancel("r-1", 1L)) : Optional.empty(), now);
    boolean unfinished = status == DlqJobStatus.PENDING || status == DlqJobStatus.RUNNING;
    assertEquals(requested && unfinished, stopped.isPresent(), status + ", requested " + requested);
    if (stopped.isEmpty()) {
      return;
    }
    DlqJob s = stopped.get();
    assertEquals(DlqJobStatus.CANCELLED, s.getStatus());
    assertEquals(updates + 1, s.getUpdates(), "one update more: it wins over every earlier record of the job");
    assertEquals(Math.max(updatedAt, now), s.getFinishedAt(), "finished now, never before its last batch");
    assertEquals(s.getFinishedAt(), s.getUpdatedAt());
    assertEquals(DlqJob.newBuilder(j).setStatus(DlqJobStatus.CANCELLED).setUpdates(updates + 1)
        .setUpdatedAt(s.getUpdatedAt()).setFinishedAt(s.getFinishedAt()).build(), s,
        "counts, ranges, selection and rate as the last batch left them");
    assertTrue(JobCancels.stop(s, Optional.of(new DlqCancel("r-1", 1L)), now + 1).isEmpty(), "stopped once");
    DlqJobView view = Conversions.view(s, Optional.of(new DlqCancel("r-1", 1L)));
    assertEquals(DlqJobView.Status.CANCELLED, view.status());
    assertEquals(handled, view.handled());
    assertTrue(view.finished());
  }

  @Test
  void aRequestForAnotherJobStopsNothing() {
    assertTrue(JobCancels.stop(job(DlqJobStatus.RUNNING, 1, 1, 1), Optional.of(new DlqCancel("r-2", 1L)), 5).isEmpty());
  }

  @Test
  void anUnfinishedJobWithARequestIsShownCancellingAFinishedOneAsItEnded() {
    Optional<DlqCancel> c = Optional.of(new DlqCancel("r-1", 42L));
    DlqJobView running = Conversions.view(job(DlqJobStatus.RUNNING, 3, 4, 10), c);
    assertEquals(DlqJobView.Status.CANCELLING, running.status());
    assertEquals(42L, running.cancelRequestedAt().toEpochMilli());
    assertEquals(false, running.finished(), "it may still be in its last batch");
    assertEquals(DlqJobView.Status.DONE, Conversions.view(job(DlqJobStatus.DONE, 3, 4, 10), c).status(),
        "a request that came after the job finished changes nothing");
    assertNull(Conversions.view(job(DlqJobStatus.RUNNING, 3, 4, 10)).cancelRequestedAt());
  }

  /**
   * The runner's loop as a model: a job of {@code total} dead letters in batches of {@code batch},
   * a cancel request arriving after {@code cancelAfter} batches, the runner dying after
   * {@code crashAfter} steps and another one replaying the state topic. Whatever the order, the job
   * ends DONE only if the cancel came after its last batch, else CANCELLED with exactly the batches
   * committed before the request was read, and never a batch after.
   */
  @Property
  void aCancelStopsTheJobAtTheNextStepAlsoAcrossAFailover(@ForAll @IntRange(min = 1, max = 40) int total,
      @ForAll @IntRange(min = 1, max = 9) int batch, @ForAll @IntRange(min = 0, max = 12) int cancelAfter,
      @ForAll @IntRange(min = 0, max = 15) int crashAfter) {
    List<byte[][]> topic = new ArrayList<>(); // <cluster>.dlq.state: key, value
    DlqJob created = job(DlqJobStatus.PENDING, 0, 0, 0);
    created = DlqJob.newBuilder(created).setRanges(List.of(new DlqRange(0, 0L, (long) total))).setScanned(0).setHandled(0)
        .setSkipped(0).build();
    topic.add(new byte[][] {DlqState.jobKey("r-1"), OrdoSerdes.DLQ_JOB.encode(created)});
    DlqState state = replay(topic);
    long now = 100;
    int batches = 0;
    int batchesBeforeCancel = -1;
    for (int step = 0; step < 200; step++, now += 10) {
      if (step == crashAfter) {
        state = replay(topic); // another runner takes over: it knows only what the topic holds
      }
      if (batches == cancelAfter && state.cancel("r-1").isEmpty()) {
        DlqJob seen = state.job("r-1").orElseThrow();
        if (JobCancels.request(seen, state.cancel("r-1"), now) instanceof JobCancels.Write w) {
          topic.add(new byte[][] {DlqState.cancelKey("r-1"), OrdoSerdes.DLQ_CANCEL.encode(w.request())});
          state.put(w.request()); // the runner's poll reads it before its next step
          batchesBeforeCancel = batches;
        }
      }
      DlqJob j = state.job("r-1").orElseThrow();
      Optional<DlqJob> stopped = JobCancels.stop(j, state.cancel("r-1"), now);
      if (stopped.isPresent()) {
        write(topic, state, stopped.get());
        continue;
      }
      if (JobCancels.finished(j.getStatus())) {
        break;
      }
      DlqRange r = j.getRanges().get(0);
      long next = Math.min(r.getEnd(), r.getNext() + batch);
      boolean done = next >= r.getEnd();
      write(topic, state, DlqJob.newBuilder(j).setRanges(List.of(new DlqRange(0, next, r.getEnd())))
          .setHandled(j.getHandled() + (next - r.getNext())).setScanned(j.getScanned() + (next - r.getNext()))
          .setStatus(done ? DlqJobStatus.DONE : DlqJobStatus.RUNNING).setFinishedAt(done ? now : null)
          .setUpdatedAt(now).setUpdates(j.getUpdates() + 1).build());
      batches++;
    }
    DlqJob end = replay(topic).job("r-1").orElseThrow();
    int needed = (total + batch - 1) / batch;
    if (batchesBeforeCancel < 0) {
      assertEquals(DlqJobStatus.DONE, end.getStatus(), "the cancel came after the job was done: refused");
      assertEquals(total, end.getHandled());
    } else {
      assertTrue(batchesBeforeCancel < needed);
      assertEquals(DlqJobStatus.CANCELLED, end.getStatus(), end::toString);
      assertEquals(Math.min(total, (long) batchesBeforeCancel * batch), end.getHandled(),
          "exactly the batches before the request; none after");
      assertEquals(batchesBeforeCancel, batches, "no batch after the request was read");
      assertInstanceOf(JobCancels.Finished.class, JobCancels.request(end, Optional.empty(), now),
          "cancelling it again is refused");
    }
  }

  private static void write(List<byte[][]> topic, DlqState state, DlqJob j) {
    topic.add(new byte[][] {DlqState.jobKey(j.getId()), OrdoSerdes.DLQ_JOB.encode(j)});
    state.put(j);
  }

  private static DlqState replay(List<byte[][]> topic) {
    DlqState s = new DlqState();
    topic.forEach(r -> s.apply(r[0], r[1]));
    return s;
  }
}
