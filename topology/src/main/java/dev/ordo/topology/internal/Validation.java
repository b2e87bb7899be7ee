package dev.ordo.topology.internal;

import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import dev.ordo.api.Names;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Item;
import dev.ordo.schema.ItemHeader;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Requester;
import java.util.List;
import java.util.Map;

/**
 * The checks an item or command passes before the queue acts on it: each throws {@link InvalidInput}
 * naming the field, and none reads or changes anything but its arguments.
 */
public final class Validation {
  private Validation() {}

  /** A new item's fields, against the payload limit and the default headers limit (8 KiB). */
  public static void item(Item item, int payloadLimit) {
    item(item, payloadLimit, 8 * 1024);
  }

  /** A new item's fields, against the payload and headers limits. */
  public static void item(Item item, int payloadLimit, int headersLimit) {
    check(Names.problem("namespace", item.getNamespace()));
    check(Names.problem("topic", item.getTopic()));
    if (DemandBook.ANY_TOPIC.equals(item.getTopic())) {
      throw new InvalidInput("topic '*' is reserved (it means any topic in a dequeue)");
    }
    int size = item.getPayload().remaining();
    if (size > payloadLimit) {
      throw new InvalidInput("payload of " + size + " bytes is over the limit of " + payloadLimit);
    }
    if (item.getHeaders() != null) {
      headers(item.getHeaders(), headersLimit);
    }
    if (item.getLeaseDurationMs() != null && item.getLeaseDurationMs() <= 0) {
      throw new InvalidInput("leaseDurationMs must be > 0, got " + item.getLeaseDurationMs());
    }
    if (item.getTtlMs() != null && item.getTtlMs() <= 0) {
      throw new InvalidInput("ttlMs must be > 0, got " + item.getTtlMs());
    }
    if (item.getMaxAttempts() != null && item.getMaxAttempts() < 1) {
      throw new InvalidInput("maxAttempts must be >= 1, got " + item.getMaxAttempts());
    }
  }

  private static void headers(List<ItemHeader> headers, int limit) {
    for (ItemHeader h : headers) {
      if (ItemHeaders.isReserved(h.getKey())) {
        throw new InvalidInput("headers: header name '" + h.getKey() + "' is reserved (names starting with '"
            + ItemHeaders.RESERVED_PREFIX + "' are Ordo's own)");
      }
    }
    int size = ItemHeaders.recordsSizeBytes(headers);
    if (size > limit) {
      throw new InvalidInput("headers of " + size + " bytes are over the limit of " + limit
          + " (ordo.headers.max.bytes)");
    }
  }

  /** The payload against a namespace's limit (its policy's {@code maxPayloadBytes}). */
  public static void payload(Item item, int namespaceLimit) {
    int size = item.getPayload().remaining();
    if (size > namespaceLimit) {
      throw new InvalidInput("payload of " + size + " bytes is over the limit of " + namespaceLimit
          + " of namespace " + item.getNamespace());
    }
  }

  /**
   * Null when answers to {@code requester} can be sent (none or a partition of the deliveries topic,
   * whose partition count is {@code deliveriesPartitions}, 0 when unknown), else why not.
   */
  public static String replyProblem(Requester requester, int deliveriesPartitions) {
    if (requester == null) {
      return null;
    }
    int p = requester.getReplyPartition();
    if (p < 0 || deliveriesPartitions > 0 && p >= deliveriesPartitions) {
      return "reply partition " + p + " of requester " + requester.getId() + " is not a partition of the deliveries topic"
          + (deliveriesPartitions > 0 ? " (" + deliveriesPartitions + " partitions)" : "");
    }
    return null;
  }

  public static void demand(Requester requester, Demand demand) {
    if (requester == null) {
      throw new InvalidInput("a demand needs a requester to deliver to");
    }
    check(Names.problem("namespace", demand.getNamespace()));
    if (demand.getValidForMs() <= 0) {
      throw new InvalidInput("demand validForMs must be > 0, got " + demand.getValidForMs());
    }
    for (Map.Entry<String, Integer> e : demand.getTopics().entrySet()) {
      if (!DemandBook.ANY_TOPIC.equals(e.getKey())) {
        check(Names.problem("topic", e.getKey()));
      }
      if (e.getValue() == null || e.getValue() < 0) {
        throw new InvalidInput("demand count for topic " + e.getKey() + " must be >= 0");
      }
    }
    if (demand.getLimit() < -1) {
      throw new InvalidInput("demand limit must be >= 0, or -1 for none, got " + demand.getLimit());
    }
    if (demand.getReceived() < 0) {
      throw new InvalidInput("demand received must be >= 0, got " + demand.getReceived());
    }
    if (demand.getOnce() && demand.getLimit() >= 0) {
      throw new InvalidInput("a once demand takes no limit: it is served once and kept nowhere");
    }
  }

  public static void nack(Nack nack) {
    if (nack.getDelayMs() < 0) {
      throw new InvalidInput("nack delayMs must be >= 0, got " + nack.getDelayMs());
    }
  }

  public static void extend(Extend extend) {
    if (extend.getLeaseDurationMs() <= 0) {
      throw new InvalidInput("extend leaseDurationMs must be > 0, got " + extend.getLeaseDurationMs());
    }
  }

  /** The offset of the item {@code itemId} names, which a {@code kind} command brought to {@code partition}. */
  public static long itemOn(int partition, String itemId, CommandKind kind) {
    ItemId id;
    try {
      id = ItemId.parse(itemId);
    } catch (IllegalArgumentException e) {
      throw new InvalidInput(e.getMessage());
    }
    if (id.partition() != partition) {
      throw new InvalidInput("item " + itemId + " belongs to partition " + id.partition()
          + " but its " + kind + " arrived on partition " + partition);
    }
    return id.offset();
  }

  private static void check(String problem) {
    if (problem != null) {
      throw new InvalidInput(problem);
    }
  }
}
