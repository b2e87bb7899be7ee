package dev.ordo.client.dlq;

/**
 * A dead letter's ID: the partition and offset of its record on {@code <cluster>.dlq}, written
 * {@code <partition>-<offset>} like an item ID (it is not the item's ID: a dead letter of a queue
 * item carries that as {@link DeadLetterInfo#itemId()}).
 */
public record DeadLetterId(int partition, long offset) implements Comparable<DeadLetterId> {
  public DeadLetterId {
    if (partition < 0 || offset < 0) {
      throw new IllegalArgumentException("dead-letter ID needs a partition and offset >= 0, got " + partition + "-" + offset);
    }
  }

  /** Parses {@code <partition>-<offset>}; an {@link IllegalArgumentException} names the bad text. */
  public static DeadLetterId parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("dead-letter ID is missing");
    }
    int dash = text.indexOf('-');
    if (dash <= 0 || dash == text.length() - 1) {
      throw new IllegalArgumentException("not a dead-letter ID (want <partition>-<offset>): '" + text + "'");
    }
    try {
      return new DeadLetterId(Integer.parseInt(text.substring(0, dash)), Long.parseLong(text.substring(dash + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a dead-letter ID (want <partition>-<offset>): '" + text + "'");
    }
  }

  @Override
  public int compareTo(DeadLetterId o) {
    return partition != o.partition ? Integer.compare(partition, o.partition) : Long.compare(offset, o.offset);
  }

  @Override
  public String toString() {
    return partition + "-" + offset;
  }
}
