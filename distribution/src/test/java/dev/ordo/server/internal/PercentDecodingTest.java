package dev.ordo.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A URI's parts are percent-encoded UTF-8; anything else is refused, never read as another name. */
class PercentDecodingTest {
  @Test
  void escapesAndRawBytesAreUtf8() {
    assertEquals("café", PercentDecoding.decode("caf%C3%A9", false, "path segment"));
    // The JDK reads the request line a byte a char: raw UTF-8 arrives as "cafÃ©".
    assertEquals("café", PercentDecoding.decode("caf\u00c3\u00a9", false, "path segment"));
    assertEquals("a/b c+d", PercentDecoding.decode("a%2Fb%20c+d", false, "path segment"));
    assertEquals("a b", PercentDecoding.decode("a+b", true, "query parameter"));
    assertEquals("plain-name_1", PercentDecoding.decode("plain-name_1", false, "path segment"));
  }

  @Test
  void malformedUtf8AndEscapesAreRefusedNamingThePart() {
    for (String raw : List.of("%C0%AE", "%c0%ae%c0%ae", "%ED%A0%80", "%FF", "%80", "a%e0%80%afb", "%F4%90%80%80",
        "\u00c0\u00ae", "\u00ff")) {
      String e = assertThrows(IllegalArgumentException.class, () -> PercentDecoding.decode(raw, false, "path segment"))
          .getMessage();
      assertTrue(e.startsWith("path segment '" + raw + "' is not UTF-8 once percent-decoded"), e);
    }
    for (String raw : List.of("%", "%4", "%zz", "a%g1")) {
      String e = assertThrows(IllegalArgumentException.class, () -> PercentDecoding.decode(raw, true, "query parameter"))
          .getMessage();
      assertTrue(e.contains("malformed percent-escape"), e);
    }
  }
}
