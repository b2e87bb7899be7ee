package dev.ordo.topology.internal;

import dev.ordo.schema.NamespacePolicy;
import java.util.Map;

/**
 * Which items form ordered groups (docs/queue.md, "Ordered groups"; decisions D60), pure.
 *
 * <p>An item is taken in as an ordered group's when it has a group key and its topic is ordered by
 * its namespace's policy then: the policy's {@code orderedTopics} entry for the topic when there is
 * one, else true for a topic named {@code *.fifo} (an SQS FIFO queue's, with or without a policy), else
 * the policy's {@code ordered} (null: false). The mark is fixed for the item's life
 * ({@code StoredItem.ordered}): a policy switched on or off applies to the items taken in afterwards.
 * An item without a group key is a group of its own and needs no order. The rest of the rule lives
 * in the store, which keeps every live item of an ordered (namespace, topic, group key) in offset
 * order and only the oldest, while it is READY, in the ready index: {@link #mayLease}.
 */
public final class OrderedGroups {
  private OrderedGroups() {}

  /** True when {@code topic}'s grouped items are ordered under {@code policy} (null: none). */
  public static boolean ordered(NamespacePolicy policy, String topic) {
    if (policy == null) {
      return fifo(topic);
    }
    Map<String, Boolean> topics = policy.getOrderedTopics();
    Boolean own = topics == null || topics.isEmpty() ? null : topics.get(topic);
    if (own != null) {
      return own;
    }
    return fifo(topic) || Boolean.TRUE.equals(policy.getOrdered());
  }

  /** The suffix of a topic ordered by its name: an SQS FIFO queue's (docs/sqs.md, "FIFO queues"). */
  public static final String FIFO_SUFFIX = ".fifo";

  /** True for a topic named {@code *.fifo}: ordered unless its namespace's {@code orderedTopics} says not. */
  public static boolean fifo(String topic) {
    return topic.endsWith(FIFO_SUFFIX);
  }

  /** True when some topic of the namespace may be ordered under {@code policy}: worth asking per item. */
  public static boolean any(NamespacePolicy policy) {
    if (policy == null) {
      return false;
    }
    if (Boolean.TRUE.equals(policy.getOrdered())) {
      return true;
    }
    Map<String, Boolean> topics = policy.getOrderedTopics();
    return topics != null && topics.containsValue(Boolean.TRUE);
  }

  /**
   * The rule dispatch keeps: an item of an ordered group may be leased only when it is READY and its
   * group's head, the group's oldest live item whatever that one's state ({@code head}: its offset, null
   * when the group has none, as for an item arriving). So a leased head holds the group, a head nacked
   * with a delay (DELAYED or PARKED) holds it until it is due, and a head that is gone (acked,
   * dead-lettered, expired, cancelled, dropped, purged) lets the next one go.
   */
  public static boolean mayLease(long offset, boolean ready, Long head) {
    return ready && (head == null || head == offset);
  }
}
