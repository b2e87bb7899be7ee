package dev.ordo.store.internal;

import java.nio.ByteBuffer;

/**
 * Timer index: {@code [0x30][kind: 1][dueAt: 8][offset: 8]}, value empty. Within a kind, byte
 * order is due order (sign-flipped big-endian), so "everything due by now" is one range from the
 * kind's checkpoint to {@code [kind][now][max]}: FOQS's bounded scan, never the whole store.
 */
public final class TimerKeySchema {
  public static final int SIZE = 1 + 1 + 8 + 8;

  private TimerKeySchema() {}

  public static byte[] prefix(byte kind) {
    return new byte[] {KeyFamily.TIMER, kind};
  }

  public static byte[] key(byte kind, long dueAt, long offset) {
    ByteBuffer buf = ByteBuffer.allocate(SIZE);
    buf.put(KeyFamily.TIMER).put(kind);
    OrderedBytes.putLong(buf, dueAt);
    OrderedBytes.putLong(buf, offset);
    return buf.array();
  }

  /** Inclusive upper bound of every timer of {@code kind} due at or before {@code now}. */
  public static byte[] dueBy(byte kind, long now) {
    return key(kind, now, Long.MAX_VALUE);
  }

  public static long dueAt(byte[] key) {
    return OrderedBytes.getLong(key, 2);
  }

  public static long offset(byte[] key) {
    return OrderedBytes.getLong(key, 10);
  }
}
