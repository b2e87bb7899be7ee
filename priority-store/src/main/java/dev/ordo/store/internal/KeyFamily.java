package dev.ordo.store.internal;

/**
 * The one-byte family prefix that starts every key of the queue store. Families never share a
 * prefix, so a range inside one family never reaches another; a layout change takes a new byte.
 */
public final class KeyFamily {
  public static final byte ITEM = 0x10;
  public static final byte READY = 0x20;
  public static final byte AGE = 0x28;
  public static final byte TIMER = 0x30;
  public static final byte COUNTS = 0x40;

  private KeyFamily() {}
}
