package dev.ordo.server.sqs;

import dev.ordo.api.ItemId;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A receipt handle: the item, the lease it was received on, and its queue, as opaque text
 * ({@code base64url("1\n<item id>\n<lease id>\n<namespace>\n<topic>")}). The lease makes a handle from an
 * earlier receive stale: the queue refuses it (STALE_LEASE) once the item was received again. Pure.
 */
public record ReceiptHandle(ItemId itemId, String leaseId, String namespace, String topic) {
  private static final String VERSION = "1";

  public String encode() {
    String text = String.join("\n", VERSION, itemId.toString(), leaseId, namespace, topic);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The handle {@code text} names, or ReceiptHandleIsInvalid as SQS answers a handle it did not issue. */
  public static ReceiptHandle decode(String text) throws SqsException {
    SqsException invalid = SqsError.RECEIPT_HANDLE_IS_INVALID.with("The input receipt handle \"" + shorten(text)
        + "\" is not a valid receipt handle.");
    if (text == null || text.isEmpty() || text.length() > 2048) {
      throw invalid;
    }
    String[] parts;
    try {
      parts = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8).split("\n", -1);
    } catch (IllegalArgumentException e) {
      throw invalid;
    }
    if (parts.length != 5 || !parts[0].equals(VERSION) || parts[2].isEmpty() || parts[3].isEmpty()
        || parts[4].isEmpty()) {
      throw invalid;
    }
    try {
      return new ReceiptHandle(ItemId.parse(parts[1]), parts[2], parts[3], parts[4]);
    } catch (IllegalArgumentException e) {
      throw invalid;
    }
  }

  private static String shorten(String text) {
    if (text == null) {
      return "";
    }
    return text.length() > 64 ? text.substring(0, 64) + "..." : text;
  }
}
