package dev.ordo.store.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * A group's entries at its priorities ({@code FairShareEntries.Rows}): short arrays up to a few priorities,
 * a map beyond; either way they answer as a map from priority to entry, and the fair shares over them
 * keep and forget a group spread over many priorities entry by entry (docs/store.md, "Fair shares, one
 * map entry per group").
 */
class FairSharesGroupRowsProperties {
  /** +priority: put a new entry there; -priority - 1: remove it. */
  @Provide
  Arbitrary<List<Integer>> ops() {
    return Arbitraries.integers().between(-25, 24).list().ofMaxSize(200);
  }

  @Property
  void rowsAnswerAsAMapFromPriorityToEntry(@ForAll("ops") List<Integer> ops) {
    FairShareEntries.Rows rows = new FairShareEntries.Rows();
    Map<Integer, long[]> model = new HashMap<>();
    for (int op : ops) {
      if (op >= 0) {
        long[] row = {op};
        rows.put(op, row);
        model.put(op, row);
      } else {
        int p = -op - 1;
        assertEquals(model.remove(p) != null, rows.remove(p), "removed " + p);
      }
      assertEquals(model.size(), rows.count());
      for (int p = 0; p < 25; p++) {
        assertSame(model.get(p), rows.get(p), "priority " + p);
      }
      Map<Integer, long[]> seen = new HashMap<>();
      rows.forEach((row, p) -> seen.put(p, row));
      assertEquals(model, seen);
    }
  }

  /** One group with items at 20 priorities (more than the arrays hold), then acked one by one. */
  @Test
  void aGroupAtManyPrioritiesKeepsAnEntryPerPriorityAndIsForgottenWhenIdle() {
    FairShares fair = new FairShares();
    List<StoredItem> items = new ArrayList<>();
    for (int p = 0; p < 20; p++) {
      StoredItem s = item(p, 100 + p);
      items.add(s);
      fair.change(null, s);
    }
    assertEquals(40, fair.size(), "20 topic priorities and 20 of the group's");
    for (int p = 0; p < 20; p++) {
      assertEquals(100 + p, fair.lastSlot("ns", "t", p, "g"));
      assertEquals(1, fair.ready("ns", "t", p, "g"));
    }
    Map<FairShares.Key, long[]> all = new HashMap<>();
    fair.forEach(all::put);
    assertEquals(40, all.size());
    for (int p = 19; p >= 0; p--) {
      fair.change(items.get(p), null);
      assertNull(fair.lastSlot("ns", "t", p, "g"), "the acked priority's entry goes");
      if (p > 0) {
        assertEquals(99 + p, fair.lastSlot("ns", "t", p - 1, "g"), "the others stay");
      }
    }
    assertEquals(0, fair.size());
  }

  private static StoredItem item(int priority, long slot) {
    Item item = Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(priority).setGroupKey("g")
        .setPayload(ByteBuffer.wrap(new byte[0])).build();
    return StoredItem.newBuilder().setItem(item).setState(ItemState.READY).setAttempts(0).setEnqueuedAt(0)
        .setReadyAt(0).setLeaseDurationMs(30_000).setMaxAttempts(5).setSemantics(DeliverySemantics.AT_LEAST_ONCE)
        .setSlot(slot).setFlat(true).setHistory(new ArrayList<>()).build();
  }
}
