package dev.ordo.store.internal;

/**
 * The one-byte family prefix that starts every key of the queue store. Families never share a
 * prefix, so a range inside one family never reaches another; a layout change takes a new byte.
 */
public final class KeyFamily {
  public static final byte ITEM = 0x10;
  public static final byte READY = 0x20;
  /** A group's ready items, of which the ready index holds the first ({@link GroupQueueKeySchema}). */
  public static final byte GROUP_QUEUE = 0x24;
  /** An ordered group's live items by offset, its head first ({@link OrderKeySchema}, decisions D60). */
  public static final byte ORDER = 0x2C;
  public static final byte AGE = 0x28;
  public static final byte TIMER = 0x30;
  public static final byte OVERFLOW = 0x38;
  public static final byte COUNTS = 0x40;
  /** Fair queueing's per-group and per-priority state ({@link FairShares}). */
  public static final byte GROUPS = 0x48;
  /**
   * Bookkeeping of the index store's consistency with the item table: {@code [0x50]['i']} in the
   * item table, {@code [0x50]['x']} in the index store (see PriorityStore#openIndex).
   */
  public static final byte META = 0x50;
  /**
   * The state log's blocks ({@code ordo-queue-state}, changelogged): {@code [0x60][block: 8]} → the
   * block's live items with their states ({@link StateBlockKeySchema}).
   */
  public static final byte STATE_BLOCK = 0x60;
  /**
   * The state log's cold items ({@code ordo-queue-state}): {@code [0x68][offset: 8]} → the whole
   * StoredItem (Avro), for items below the cold watermark, whose records the items topic may delete.
   */
  public static final byte COLD_ITEM = 0x68;

  /** The families derived from the item table: the ones the index store holds. */
  public static final byte[] INDEX_FAMILIES = {READY, GROUP_QUEUE, ORDER, AGE, TIMER, OVERFLOW, COUNTS, GROUPS};

  private KeyFamily() {}
}
