package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.api.ItemId;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.Requester;
import dev.ordo.store.PriorityStore;
import dev.ordo.topology.QueueMetrics;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An item whose time to live has passed is never handed out, even when its TTL timer has not run yet
 * (a loaded partition runs its timers late): the dispatch that meets it expires it instead (issue 44's
 * history checker found such deliveries under faults).
 */
class ExpiredAtDispatchTest {
  private static final Requester A = new Requester("a", 0);
  private final PlannedStore planned = new PlannedStore();
  private final PriorityStore store = planned.store;
  private final QueuePlanner planner = planned.planner;
  private final QueueMetrics metrics = planned.metrics;
  private long now = 1_000_000;

  @Test
  void aDemandMeetingAnItemPastItsTimeToLiveExpiresItAndLeasesTheNext() {
    Item shortLived = Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(0).setTtlMs(1_000L)
        .setPayload(ByteBuffer.wrap(new byte[] {1})).build();
    Item longLived = Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(5)
        .setPayload(ByteBuffer.wrap(new byte[] {2})).build();
    apply(planner.onItem(0, now, shortLived, store, now));
    apply(planner.onItem(1, now, longLived, store, now));
    now += 1_500; // past the first item's TTL, with no timer run since
    List<DeliveredItem> got = apply(planner.onCommand(new Command(A, now,
        new Demand("ns", Map.of("t", 2), 60_000L, true, false, false, -1L, 0L), false, null), store, now));
    assertEquals(List.of(1L), got.stream().map(d -> ItemId.parse(d.getItemId()).offset()).toList(),
        "only the item still alive");
    assertNull(store.get(0), "the expired one is gone");
    assertEquals(1, metrics.get(QueueMetrics.TTL_EXPIRED));
  }

  private List<DeliveredItem> apply(Effects effects) {
    return planned.apply(effects);
  }
}
