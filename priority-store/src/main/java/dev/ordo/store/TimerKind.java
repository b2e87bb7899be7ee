package dev.ordo.store;

/** The timer families of the store's timer index, each scanned from its own checkpoint. */
public enum TimerKind {
  /** A DELAYED item becomes ready. */
  DUE((byte) 1),
  /** A LEASED item's lease runs out. */
  LEASE((byte) 2),
  /** An item's time to live runs out, in any state. */
  TTL((byte) 3);

  public final byte code;

  TimerKind(byte code) {
    this.code = code;
  }
}
