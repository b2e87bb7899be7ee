package dev.ordo.client.internal;

import dev.ordo.api.ItemId;
import dev.ordo.schema.DeliveredItem;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of the items a dequeue received it keeps: the best by priority, at most the wanted count
 * per topic. A topic's own count is filled first, then the any-topic count ({@code *}), the same
 * order in which the queue serves a demand. The rest is surplus, to release.
 */
public record Selection(List<DeliveredItem> chosen, List<DeliveredItem> surplus) {
  public static final String ANY_TOPIC = "*";

  /** Dequeue order: priority (lower first), then enqueue time, then partition and offset. */
  public static final Comparator<DeliveredItem> ORDER = Comparator
      .comparingInt(DeliveredItem::getPriority)
      .thenComparingLong(DeliveredItem::getEnqueuedAt)
      .thenComparing(i -> ItemId.parse(i.getItemId()), Comparator.comparingInt(ItemId::partition)
          .thenComparingLong(ItemId::offset));

  public static Selection of(Map<String, Integer> wanted, Collection<DeliveredItem> items) {
    List<DeliveredItem> sorted = new ArrayList<>(items);
    sorted.sort(ORDER);
    Map<String, Integer> left = new HashMap<>(wanted);
    List<DeliveredItem> chosen = new ArrayList<>();
    List<DeliveredItem> surplus = new ArrayList<>();
    for (DeliveredItem item : sorted) {
      if (take(left, item.getTopic()) || take(left, ANY_TOPIC)) {
        chosen.add(item);
      } else {
        surplus.add(item);
      }
    }
    return new Selection(chosen, surplus);
  }

  /** What is still wanted after keeping the best of {@code items}: topic → count, zeros left out. */
  public static Map<String, Integer> remaining(Map<String, Integer> wanted, Collection<DeliveredItem> items) {
    Map<String, Integer> left = new HashMap<>(wanted);
    for (DeliveredItem item : items) {
      if (!take(left, item.getTopic())) {
        take(left, ANY_TOPIC);
      }
    }
    left.values().removeIf(n -> n <= 0);
    return left;
  }

  private static boolean take(Map<String, Integer> left, String key) {
    Integer n = left.get(key);
    if (n == null || n <= 0) {
      return false;
    }
    left.put(key, n - 1);
    return true;
  }
}
