package dev.ordo.bench.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bench's payloads: {@code [sequence: 8][stamp: 8][filler]}, {@code size} bytes in all. The
 * stamp is {@link System#nanoTime()} at enqueue for latencies (one JVM measures both ends), or the
 * due time in epoch milliseconds for delays.
 */
public final class Payloads {
  public static final int HEADER = 16;

  private Payloads() {}

  public static byte[] of(int size, long sequence, long stamp) {
    byte[] out = new byte[size];
    Arrays.fill(out, HEADER, size, (byte) 'x');
    ByteBuffer.wrap(out).putLong(sequence).putLong(stamp);
    return out;
  }

  public static long sequence(byte[] payload) {
    return ByteBuffer.wrap(payload).getLong(0);
  }

  public static long stamp(byte[] payload) {
    return ByteBuffer.wrap(payload).getLong(8);
  }
}
