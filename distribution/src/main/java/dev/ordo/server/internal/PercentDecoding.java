package dev.ordo.server.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes a part of a request's URI (a path segment, a query name or value) to text, strictly:
 * percent-escapes and the raw bytes of the request line (which the JDK reads as ISO-8859-1, one char
 * a byte) are bytes of UTF-8, and bytes that are not well-formed UTF-8 (overlong forms such as
 * {@code %C0%AE} for '.', surrogates, stray continuation bytes, a malformed escape) are refused. The
 * JDK's {@code URLDecoder} would turn them into U+FFFD and read raw UTF-8 as Latin-1: a name would
 * silently become another name.
 */
final class PercentDecoding {
  private PercentDecoding() {}

  /**
   * @param plusIsSpace whether '+' is a space (a query, as a form encodes it) or itself (a path)
   * @param what what {@code raw} is, for the error ("path segment", "query parameter")
   * @throws IllegalArgumentException naming {@code what} when {@code raw} is not percent-encoded UTF-8
   */
  static String decode(String raw, boolean plusIsSpace, String what) {
    boolean plain = true;
    for (int i = 0; i < raw.length() && plain; i++) {
      char c = raw.charAt(i);
      plain = c < 0x80 && c != '%' && !(plusIsSpace && c == '+');
    }
    if (plain) {
      return raw;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
        int lo = hi < 0 ? -1 : Character.digit(raw.charAt(i + 2), 16);
        if (lo < 0) {
          throw new IllegalArgumentException(what + " '" + raw + "' has a malformed percent-escape at character " + i
              + " (a '%' must be followed by two hex digits)");
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else if (c == '+' && plusIsSpace) {
        bytes.write(' ');
      } else if (c < 0x100) {
        bytes.write(c);
      } else {
        // Not from the request line (the JDK reads it a byte a char): this char's own UTF-8.
        bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(what + " '" + raw + "' is not UTF-8 once percent-decoded (an overlong form,"
          + " a surrogate or a stray byte); percent-encode the UTF-8 bytes of the text");
    }
  }
}
