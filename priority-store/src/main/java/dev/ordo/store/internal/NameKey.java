package dev.ordo.store.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Namespace and topic as a key prefix: {@code [namespace UTF-8][0x00][topic UTF-8][0x00]}.
 *
 * <p>Names never contain 0x00 ({@code dev.ordo.api.Names} forbids control characters), so the
 * terminator makes the encoding prefix-free: {@code "a"} and {@code "ab"} differ at the byte after
 * {@code a} (0x00 against 'b'), and a scan of one topic's prefix never reaches another topic.
 * UTF-8's byte order equals code-point order, so topics also sort by name.
 */
public final class NameKey {
  private NameKey() {}

  public static byte[] encode(String namespace, String topic) {
    byte[] ns = namespace.getBytes(StandardCharsets.UTF_8);
    byte[] t = topic.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[ns.length + t.length + 2];
    System.arraycopy(ns, 0, out, 0, ns.length);
    System.arraycopy(t, 0, out, ns.length + 1, t.length);
    return out;
  }

  public static byte[] encodeNamespace(String namespace) {
    byte[] ns = namespace.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[ns.length + 1];
    System.arraycopy(ns, 0, out, 0, ns.length);
    return out;
  }

  /** Reads namespace and topic from {@code buf} at its position, leaving it after the second 0x00. */
  public static String[] decode(ByteBuffer buf) {
    return new String[] {readTerminated(buf), readTerminated(buf)};
  }

  private static String readTerminated(ByteBuffer buf) {
    int start = buf.position();
    int end = start;
    while (buf.get(end) != 0) {
      end++;
    }
    String s = new String(buf.array(), buf.arrayOffset() + start, end - start, StandardCharsets.UTF_8);
    buf.position(end + 1);
    return s;
  }
}
