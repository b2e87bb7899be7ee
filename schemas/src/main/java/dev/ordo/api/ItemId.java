package dev.ordo.api;

/**
 * An item's ID: the partition and offset at which Kafka appended it to {@code <cluster>.items}
 * (FOQS's shard id and primary key). Stable for the item's whole life; every operation on the item
 * routes to {@link #partition()}. Its text form is {@code <partition>-<offset>}, e.g. {@code 3-1042}.
 */
public record ItemId(int partition, long offset) {
  public ItemId {
    if (partition < 0 || offset < 0) {
      throw new IllegalArgumentException("item ID needs a partition and offset >= 0, got " + partition + "-" + offset);
    }
  }

  /** Parses {@code <partition>-<offset>}; throws {@link IllegalArgumentException} naming the bad text. */
  public static ItemId parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("item ID is missing");
    }
    int dash = text.indexOf('-');
    if (dash <= 0 || dash == text.length() - 1) {
      throw new IllegalArgumentException("not an item ID (want <partition>-<offset>): '" + text + "'");
    }
    try {
      return new ItemId(Integer.parseInt(text.substring(0, dash)), Long.parseLong(text.substring(dash + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not an item ID (want <partition>-<offset>): '" + text + "'");
    }
  }

  @Override
  public String toString() {
    return partition + "-" + offset;
  }
}
