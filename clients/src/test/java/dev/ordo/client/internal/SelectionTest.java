package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliverySemantics;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SelectionTest {
  @Test
  void keepsTheBestPrioritiesUpToTheCountAndLeavesTheRestAsSurplus() {
    List<DeliveredItem> items = List.of(item("0-1", "t", 5), item("1-1", "t", 1), item("2-1", "t", 3), item("3-1", "t", 0));
    Selection s = Selection.of(Map.of("t", 2), items);
    assertEquals(List.of("3-1", "1-1"), ids(s.chosen()));
    assertEquals(List.of("2-1", "0-1"), ids(s.surplus()));
  }

  @Test
  void fillsEachTopicsOwnCountBeforeTheAnyTopicCount() {
    List<DeliveredItem> items = List.of(item("0-1", "a", 0), item("0-2", "a", 1), item("0-3", "a", 2), item("1-1", "b", 5));
    Selection s = Selection.of(Map.of("a", 1, "*", 2), items);
    assertEquals(List.of("0-1", "0-2", "0-3"), ids(s.chosen()), "a's own slot, then the two best for *");
    assertEquals(List.of("1-1"), ids(s.surplus()));
    assertEquals(Map.of(), Selection.remaining(Map.of("a", 1, "*", 2), items));
    assertEquals(Map.of("b", 1), Selection.remaining(Map.of("a", 1, "b", 1), items.subList(0, 3)));
  }

  @Test
  void equalPrioritiesComeInEnqueueOrderThenByPartitionAndOffset() {
    DeliveredItem late = item("0-9", "t", 1, 200);
    DeliveredItem early = item("3-1", "t", 1, 100);
    DeliveredItem tie = item("1-5", "t", 1, 100);
    assertEquals(List.of("1-5", "3-1", "0-9"), ids(Selection.of(Map.of("t", 3), List.of(late, early, tie)).chosen()));
  }

  @Test
  void chosenAndSurplusPartitionTheItemsWhateverTheArrivalOrder() {
    Random random = new Random(42);
    for (int round = 0; round < 500; round++) {
      List<DeliveredItem> items = new ArrayList<>();
      int n = random.nextInt(20);
      for (int i = 0; i < n; i++) {
        items.add(item(random.nextInt(4) + "-" + i, "t" + random.nextInt(3), random.nextInt(5) - 2));
      }
      Map<String, Integer> wanted = Map.of("t0", random.nextInt(4) + 1, "*", random.nextInt(4));
      Selection s = Selection.of(wanted, items);
      List<DeliveredItem> shuffled = new ArrayList<>(items);
      Collections.shuffle(shuffled, random);
      assertEquals(s, Selection.of(wanted, shuffled), "order-independent");
      assertEquals(n, s.chosen().size() + s.surplus().size());
      assertTrue(s.chosen().size() <= wanted.values().stream().mapToInt(Integer::intValue).sum());
      for (DeliveredItem c : s.chosen()) {
        for (DeliveredItem r : s.surplus()) {
          if (r.getTopic().equals(c.getTopic())) {
            assertTrue(Selection.ORDER.compare(c, r) < 0, "a kept item is better than a released one of its topic");
          }
        }
      }
      assertEquals(Selection.remaining(wanted, s.chosen()), Selection.remaining(wanted, items));
    }
  }

  static DeliveredItem item(String id, String topic, int priority) {
    return item(id, topic, priority, 100);
  }

  static DeliveredItem item(String id, String topic, int priority, long enqueuedAt) {
    return DeliveredItem.newBuilder().setItemId(id).setLeaseId("l").setNamespace("ns").setTopic(topic)
        .setPriority(priority).setAttempt(1).setPayload(ByteBuffer.allocate(0)).setEnqueuedAt(enqueuedAt)
        .setLeaseExpiresAt(0).setSemantics(DeliverySemantics.AT_LEAST_ONCE).build();
  }

  private static List<String> ids(List<DeliveredItem> items) {
    return items.stream().map(DeliveredItem::getItemId).toList();
  }
}
