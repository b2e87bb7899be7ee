package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.Purge;
import dev.ordo.schema.PurgeProgress;
import dev.ordo.schema.PurgeStatus;
import dev.ordo.schema.StoredItem;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One step of a purge job, without a store or a clock: which items go, where the next step starts. */
class PurgeStepTest {
  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // the records are built here, not decoded
  }

  private static final long NOW = 1_000_000;

  private static StoredItem item(String topic, long enqueuedAt, ItemState state) {
    Item i = Item.newBuilder().setNamespace("ns").setTopic(topic).setPriority(0)
        .setPayload(ByteBuffer.wrap(new byte[] {1})).build();
    return StoredItem.newBuilder().setItem(i).setState(state).setAttempts(0).setMaxAttempts(5).setEnqueuedAt(enqueuedAt)
        .setReadyAt(enqueuedAt).setLeaseDurationMs(30_000).setSemantics(DeliverySemantics.AT_LEAST_ONCE).build();
  }

  private static PurgeProgress job(Long before, boolean includeLeased, long end) {
    return PurgeStep.started(new Purge("j", "ns", "t", before, includeLeased, end, 1, NOW), 0, NOW);
  }

  private static List<Map.Entry<Long, StoredItem>> window(StoredItem... items) {
    List<Map.Entry<Long, StoredItem>> w = new ArrayList<>();
    for (int i = 0; i < items.length; i++) {
      w.add(Map.entry((long) i, items[i]));
    }
    return w;
  }

  @Test
  void itemsOfTheTopicEnqueuedBeforeTheCutoffGoAndLeasedOnesStayUnlessIncluded() {
    var w = window(item("t", 10, ItemState.READY), item("t", 10, ItemState.LEASED), item("other", 10, ItemState.READY),
        item("t", 500, ItemState.READY), item("t", 20, ItemState.DELAYED));
    PurgeStep.Result r = PurgeStep.plan(job(100L, false, 5), w, 5, 100, NOW);
    assertEquals(List.of(0L, 4L), r.deletions().stream().map(PurgeStep.Deletion::offset).toList());
    assertEquals(Map.of("READY", 1L, "DELAYED", 1L), r.progress().getPurged());
    assertEquals(1, r.progress().getLeasedLeft());
    assertEquals(5, r.progress().getScanned());
    assertEquals(PurgeStatus.DONE, r.progress().getStatus());

    PurgeStep.Result all = PurgeStep.plan(job(null, true, 5), w, 5, 100, NOW);
    assertEquals(List.of(0L, 1L, 3L, 4L), all.deletions().stream().map(PurgeStep.Deletion::offset).toList(),
        "every item of the topic, the leased one too");
  }

  @Test
  void withoutTokensAStepStopsAtTheFirstMatchItCannotDeleteAndTheNextStepStartsThere() {
    var w = window(item("other", 1, ItemState.READY), item("t", 1, ItemState.READY), item("t", 1, ItemState.READY),
        item("t", 1, ItemState.READY));
    PurgeStep.Result first = PurgeStep.plan(job(null, false, 4), w, 4, 1, NOW);
    assertEquals(1, first.deletions().size());
    assertEquals(2, first.progress().getNext(), "the second match waits for a token");
    assertEquals(PurgeStatus.RUNNING, first.progress().getStatus());
    assertNull(first.progress().getFinishedAt());

    PurgeStep.Result none = PurgeStep.plan(first.progress(), w.subList(2, 4), 4, 0, NOW + 1);
    assertFalse(none.changed(), "no token: nothing changes, nothing to publish");

    PurgeStep.Result rest = PurgeStep.plan(first.progress(), w.subList(2, 4), 4, 10, NOW + 2);
    assertEquals(3, rest.progress().getPurged().get("READY"), "each item counted once over the steps");
    assertEquals(PurgeStatus.DONE, rest.progress().getStatus());
  }

  @Test
  void aStepNeverReadsPastWhatThePartitionTookInAndWaitsForItsIntakeToReachTheEnd() {
    PurgeProgress j = job(null, false, 100);
    assertEquals(41, PurgeStep.windowEnd(j, 40), "taken in up to offset 40");
    assertEquals(100, PurgeStep.windowEnd(j, 500), "the job's end");
    PurgeStep.Result r = PurgeStep.plan(j, List.of(), PurgeStep.windowEnd(j, 40), 10, NOW);
    assertEquals(41, r.progress().getNext());
    assertEquals(PurgeStatus.RUNNING, r.progress().getStatus(), "offsets 41..99 are still to come");
    assertFalse(PurgeStep.plan(r.progress(), List.of(), PurgeStep.windowEnd(j, 40), 10, NOW).changed(),
        "nothing more taken in: it waits");
    assertTrue(PurgeStep.plan(r.progress(), List.of(), PurgeStep.windowEnd(j, 99), 10, NOW).progress()
        .getStatus() == PurgeStatus.DONE);
  }

  @Test
  void aFullWindowEndsTheStepAfterItsLastItem() {
    List<Map.Entry<Long, StoredItem>> w = new ArrayList<>();
    for (int i = 0; i < PurgeStep.SCAN_MAX; i++) {
      w.add(Map.entry(2L * i, item("other", 1, ItemState.READY)));
    }
    PurgeStep.Result r = PurgeStep.plan(job(null, false, 10_000), w, 10_000, 10, NOW);
    assertEquals(2L * (PurgeStep.SCAN_MAX - 1) + 1, r.progress().getNext());
    assertEquals(PurgeStep.SCAN_MAX, r.progress().getScanned());
  }

  @Test
  void aJobOfAnEmptyPartitionIsDoneAtOnce() {
    PurgeProgress j = job(null, false, 0);
    assertEquals(PurgeStatus.DONE, j.getStatus());
    assertEquals(NOW, j.getFinishedAt());
  }
}
