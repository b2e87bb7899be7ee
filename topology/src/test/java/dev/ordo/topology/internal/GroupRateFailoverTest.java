package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.Ack;
import dev.ordo.schema.Command;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Item;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.Rate;
import dev.ordo.schema.Requester;
import dev.ordo.store.PriorityStore;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A group's rate across a failover (decisions D61): the partition's store goes on (it is what the
 * changelog restores on the new owner), the planner is new (its buckets were soft state of the old
 * owner, as when a processor restarts on the same stores). A group that spent its burst just before
 * the failover gets no second burst after it: over every window across the takeover, at most
 * {@code burst + rate × window} leases; and its items are all leased in the end by the new owner.
 */
class GroupRateFailoverTest {
  private static final String NS = "ns";
  private static final Requester WORKER = new Requester("w", 0);
  private static final NamespacePolicy POLICY = NamespacePolicy.newBuilder().setNamespace(NS).setUpdatedAt(0)
      .setGroupRate(new Rate(2.0, 4L)).build(); // 2 a second, 4 at once
  private static final QueuePlanner.Settings SETTINGS = new QueuePlanner.Settings(
      new QueueDefaults(600_000, 5, null, 600_000), List.of(Duration.ofMinutes(1)), 10_000, 10_000, 0, false, 1);

  private final PriorityStore store = QueuePlannerSimulationTest.newStore();
  private QueuePlanner planner;
  private long now = 1_000_000;
  private long nextOffset;
  private final Set<TopicRef> readyTopics = new LinkedHashSet<>();
  /** The lease times of group g, in order. */
  private final List<Long> leasedAt = new ArrayList<>();
  private final Set<String> leasedIds = new HashSet<>();

  private QueuePlanner newPlanner() {
    QueuePlanner p = new QueuePlanner(SETTINGS, 0, new SplittableRandom(1), ns -> POLICY, NamespaceLoad.NONE);
    p.started(now); // as QueueProcessor.init says when the task starts
    return p;
  }

  @Test
  void aBurstSpentBeforeAFailoverIsNotSpentAgainAfterIt() {
    planner = newPlanner();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      ids.add(enqueue());
    }
    runFor(5_000); // no demand yet: g's bucket fills to its burst
    demand(); // the burst: 4 at once
    assertEquals(4, leasedAt.size(), "the whole burst at once");
    runFor(20);

    planner = newPlanner(); // the failover: a new owner on the same store, its open demand lost with the old one
    demand(); // the worker asks the new owner
    assertEquals(4, leasedAt.size(), "no second burst right after the takeover");
    runFor(30_000);

    assertEquals(new HashSet<>(ids), leasedIds, "every item of g leased in the end, none dropped");
    assertEquals(ids.size(), leasedAt.size(), "each once");
    assertEquals(0, planner.rateWaits(), "nothing waits for a token any more");
    assertEquals(0, planner.groupRateBuckets(), "g's bucket, full again, was pruned: the state is bounded");
    for (int i = 0; i < leasedAt.size(); i++) {
      for (int j = i; j < leasedAt.size(); j++) {
        long window = leasedAt.get(j) - leasedAt.get(i);
        double bound = 4 + 2.0 * window / 1000.0;
        assertTrue(j - i + 1 <= bound + 1e-9, (j - i + 1) + " leases within " + window + " ms (across the failover at "
            + "the 5th), more than " + bound);
      }
    }
  }

  // ---- a processor's loop: timer runs every 20 ms, then dispatch of what became ready ----

  private void runFor(long ms) {
    for (long end = now + ms; now < end; ) {
      now += 20;
      apply(planner.onTimers(store, now));
      apply(planner.dispatch(readyTopics, store, now));
    }
  }

  private String enqueue() {
    long offset = nextOffset++;
    Item item = Item.newBuilder().setNamespace(NS).setTopic("t").setPriority(0).setGroupKey("g")
        .setPayload(ByteBuffer.wrap(new byte[] {1})).build();
    apply(planner.onItem(offset, now, item, store, now));
    return new dev.ordo.api.ItemId(0, offset).toString();
  }

  private void demand() {
    apply(planner.onCommand(new Command(WORKER, now,
        new Demand(NS, Map.of("t", 1_000), 600_000L, true, false, false, -1L, 0L), false, null), store, now));
    apply(planner.dispatch(readyTopics, store, now));
  }

  private void apply(Effects effects) {
    for (Effects.Change c : effects.changes()) {
      store.transition(c.offset(), c.before(), c.after());
    }
    store.markChanges();
    readyTopics.addAll(effects.readyTopics());
    List<DeliveredItem> leased = new ArrayList<>();
    for (Effects.Leased l : effects.leased()) {
      leased.addAll(l.items());
    }
    for (DeliveredItem d : leased) {
      leasedAt.add(now);
      leasedIds.add(d.getItemId());
      // acked at once: the worker is fast, only the rate holds the group back
      Effects acked = planner.onCommand(new Command(WORKER, now, new Ack(d.getItemId(), d.getLeaseId()), false, null),
          store, now);
      for (Effects.Change c : acked.changes()) {
        store.transition(c.offset(), c.before(), c.after());
      }
      store.markChanges();
      readyTopics.addAll(acked.readyTopics());
    }
  }
}
