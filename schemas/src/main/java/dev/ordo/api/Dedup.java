package dev.ordo.api;

import java.nio.charset.StandardCharsets;

/**
 * Deduplication IDs (decisions D57): what every producer of the queue agrees on. An item carries
 * its ID in the Kafka header {@value #HEADER} of its record on {@code <cluster>.items} (any Kafka
 * client can set it); the partition that takes the item in refuses it when an item with the same
 * ID of the same namespace, topic and group key was taken in within the namespace's window.
 *
 * <p>Duplicates are found per partition, so they must reach the same one: Ordo's producers send an
 * item with an ID and no group key to the partition of {@link #routingKey} (its murmur2 hash, as
 * Kafka's partitioner does with a record key), and a grouped item to its group's partition.
 *
 * <p>A producer that wants the queue's verdict (the HTTP API, {@code QueueClient.enqueue}) names
 * where to send it in the header {@value #REPLY_HEADER}, {@code <reply partition>:<requester id>}.
 */
public final class Dedup {
  /** The Kafka header of an item's deduplication ID (UTF-8). */
  public static final String HEADER = "ordo.dedup.id";
  /** The Kafka header naming the requester that waits for the queue's answer to an item. */
  public static final String REPLY_HEADER = "ordo.reply.to";
  /** The longest deduplication ID, in characters: SQS's MessageDeduplicationId's. */
  public static final int MAX_LENGTH = 128;
  /** The window when a namespace's policy sets none: 5 minutes, as SQS's. */
  public static final long DEFAULT_WINDOW_MS = 300_000;

  private Dedup() {}

  /**
   * Null when {@code id} is a valid deduplication ID, else why not, naming the field: 1 to 128
   * printable ASCII characters (letters, digits and punctuation, {@code !} to {@code ~}), SQS's rule
   * for MessageDeduplicationId, so an ID that SQS takes Ordo takes too.
   */
  public static String problem(String field, String id) {
    if (id == null || id.isEmpty()) {
      return field + " is empty";
    }
    if (id.length() > MAX_LENGTH) {
      return field + " is longer than " + MAX_LENGTH + " characters (" + id.length() + ")";
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c < '!' || c > '~') {
        return field + " may hold only printable ASCII characters (letters, digits, punctuation), found "
            + (c < 128 ? "code " + (int) c : "'" + c + "'") + " at " + i;
      }
    }
    return null;
  }

  /** {@link #problem}, thrown as an {@link IllegalArgumentException}. */
  public static void check(String field, String id) {
    String problem = problem(field, id);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  /**
   * The record key of an item with a deduplication ID and no group key: the namespace, topic and ID
   * joined by a byte that none of them holds (0x00; names have no control characters, IDs are
   * printable ASCII), so Kafka's partitioner sends duplicates to one partition.
   */
  public static byte[] routingKey(String namespace, String topic, String dedupId) {
    return (namespace + '\u0000' + topic + '\u0000' + dedupId).getBytes(StandardCharsets.UTF_8);
  }

  /** The value of {@link #REPLY_HEADER} for a requester. */
  public static byte[] replyTo(int replyPartition, String requesterId) {
    return (replyPartition + ":" + requesterId).getBytes(StandardCharsets.UTF_8);
  }

  /** A parsed {@link #REPLY_HEADER}: where the answer goes. */
  public record ReplyTo(int partition, String requesterId) {}

  /** The requester a {@link #REPLY_HEADER} value names, or null when it is malformed. */
  public static ReplyTo parseReplyTo(byte[] value) {
    if (value == null) {
      return null;
    }
    String s = new String(value, StandardCharsets.UTF_8);
    int colon = s.indexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      return null;
    }
    try {
      int partition = Integer.parseInt(s.substring(0, colon));
      return partition < 0 ? null : new ReplyTo(partition, s.substring(colon + 1));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
