package dev.ordo.client.dlq.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Where a dead-letter listing goes on: the next record to read, partition {@code partition} of
 * {@code <cluster>.dlq} at {@code offset}; the partitions after it are read from their start. A
 * listing reads partitions in order, so one position is the whole state.
 *
 * <p>Its text is opaque to users ({@code base64url("v1:<partition>:<offset>")}): a version prefix lets the
 * layout change later, and a cursor is only ever one a server gave out.
 */
public record DlqCursor(int partition, long offset) {
  private static final String VERSION = "v1";

  public DlqCursor {
    if (partition < 0 || offset < 0) {
      throw new IllegalArgumentException("cursor needs a partition and offset >= 0");
    }
  }

  public String encode() {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString((VERSION + ":" + partition + ":" + offset).getBytes(StandardCharsets.UTF_8));
  }

  /** The cursor {@link #encode()} wrote; an {@link IllegalArgumentException} naming {@code cursor} otherwise. */
  public static DlqCursor decode(String text) {
    String bad = "cursor is not one a dead-letter listing returned: '" + text + "'";
    String plain;
    try {
      plain = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(bad);
    }
    String[] parts = plain.split(":", -1);
    if (parts.length != 3 || !parts[0].equals(VERSION)) {
      throw new IllegalArgumentException(bad);
    }
    try {
      return new DlqCursor(Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
    } catch (IllegalArgumentException e) { // NumberFormatException included
      throw new IllegalArgumentException(bad);
    }
  }
}
