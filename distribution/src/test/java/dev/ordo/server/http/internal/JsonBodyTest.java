package dev.ordo.server.http.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Request bodies: every problem is an IllegalArgumentException naming the field. */
class JsonBodyTest {
  private static final Set<String> FIELDS = Set.of("s", "n", "ms", "b", "counts", "bytes");

  private static JsonBody parse(String json) {
    return JsonBody.parse(json.getBytes(StandardCharsets.UTF_8), FIELDS);
  }

  private static String error(Runnable r) {
    return assertThrows(IllegalArgumentException.class, r::run).getMessage();
  }

  @Test
  void anEmptyBodyIsAnEmptyObjectAndNullsAreAbsent() {
    JsonBody empty = JsonBody.parse(new byte[0], FIELDS);
    assertFalse(empty.has("s"));
    assertNull(parse("  \n").string("s"));
    JsonBody nulls = parse("{\"s\": null, \"n\": null, \"ms\": null, \"b\": null, \"counts\": null}");
    assertNull(nulls.string("s"));
    assertNull(nulls.integer("n", 0));
    assertNull(nulls.millis("ms", 0));
    assertNull(nulls.bool("b"));
    assertNull(nulls.counts("counts", 1));
    assertEquals("s is missing", error(() -> nulls.requiredString("s")));
  }

  @Test
  void valuesOfTheRightTypeAreRead() {
    JsonBody b = parse("{\"s\": \"text\", \"n\": -7, \"ms\": 1500, \"b\": true, \"counts\": {\"x\": 2, \"*\": 1},"
        + " \"bytes\": \"AAE=\"}");
    assertEquals("text", b.string("s"));
    assertEquals(-7, b.integer("n", Integer.MIN_VALUE));
    assertEquals(1500L, b.millis("ms", 0));
    assertTrue(b.bool("b"));
    assertEquals(Map.of("x", 2, "*", 1), b.counts("counts", 1));
    assertEquals(List.of("x", "*"), List.copyOf(b.counts("counts", 1).keySet()), "in the body's order");
    assertArrayEquals(new byte[] {0, 1}, b.base64("bytes"));
  }

  @Test
  void problemsNameTheField() {
    assertTrue(error(() -> parse("{\"zz\": 1}")).startsWith("unknown field 'zz'"));
    assertTrue(error(() -> parse("{")).startsWith("request body is not valid JSON"));
    assertTrue(error(() -> parse("{} {}")).startsWith("request body is not valid JSON"));
    assertEquals("request body must be a JSON object, got the number 5", error(() -> parse("5")));
    assertEquals("s must be a string, got the number 1", error(() -> parse("{\"s\": 1}").string("s")));
    assertEquals("n must be a whole number, got the string \"1\"", error(() -> parse("{\"n\": \"1\"}").integer("n", 0)));
    assertEquals("n must be a whole number, got 1.5", error(() -> parse("{\"n\": 1.5}").integer("n", 0)));
    assertEquals("n must be at least 1, got 0", error(() -> parse("{\"n\": 0}").integer("n", 1)));
    assertTrue(error(() -> parse("{\"n\": 2147483648}").integer("n", 0)).startsWith("n is out of range"));
    assertTrue(error(() -> parse("{\"ms\": 99999999999999999999}").millis("ms", 0)).startsWith("ms is out of range"));
    assertEquals("ms must not be negative, got -1", error(() -> parse("{\"ms\": -1}").millis("ms", 0)));
    assertEquals("ms must be at least 1, got 0", error(() -> parse("{\"ms\": 0}").millis("ms", 1)));
    assertEquals("b must be true or false, got the string \"true\"", error(() -> parse("{\"b\": \"true\"}").bool("b")));
    assertTrue(error(() -> parse("{\"counts\": 3}").counts("counts", 1)).startsWith("counts must be an object"));
    assertEquals("counts.x must be at least 1, got 0", error(() -> parse("{\"counts\": {\"x\": 0}}").counts("counts", 1)));
    assertEquals("counts.x must be a count, got null", error(() -> parse("{\"counts\": {\"x\": null}}").counts("counts", 1)));
    assertTrue(error(() -> parse("{\"bytes\": \"%%\"}").base64("bytes")).startsWith("bytes is not valid base64"));
  }

  /**
   * Bytes Jackson would read leniently into other text (HttpFuzzTest found an overlong '/' accepted as
   * '/' and an unpaired surrogate escape stored as '?'), and the nesting Jackson refuses.
   */
  @Test
  void textThatIsNotUnicodeIsRefusedNamingWhere() {
    for (String hex : List.of("c0af", "e080af", "f4908080", "eda080", "ff", "80", "c3")) {
      byte[] bad = hex(hex);
      byte[] body = ("{\"s\": \"a" + "\u0000".repeat(bad.length) + "\"}").getBytes(StandardCharsets.ISO_8859_1);
      System.arraycopy(bad, 0, body, 8, bad.length);
      String e = error(() -> JsonBody.parse(body, FIELDS));
      assertTrue(e.startsWith("request body is not valid UTF-8: ") && e.contains("at byte 8"), hex + ": " + e);
    }
    assertStarts("s has an unpaired surrogate (\\ud800 at character 1)", error(() -> parse("{\"s\": \"x\\ud800\"}")));
    assertStarts("request body is not valid JSON: Broken surrogate pair in field name",
        error(() -> parse("{\"counts\": {\"x\\ud800y\": 1}}")));
    assertStarts("s[1].t has an unpaired", error(() -> parse("{\"s\": [\"ok\", {\"t\": \"\\udbff\"}]}")));
    assertEquals("\ud83d\ude00", parse("{\"s\": \"\\ud83d\\ude00\"}").string("s"), "a surrogate pair is one code point");
    assertEquals("\u00e9", parse("{\"s\": \"\u00e9\"}").string("s"), "UTF-8 from the bytes");
    assertTrue(error(() -> parse("[".repeat(100_000) + "]".repeat(100_000))).startsWith("request body is not valid JSON: "
        + "Document nesting depth (1001) exceeds the maximum allowed"));
  }

  private static void assertStarts(String prefix, String message) {
    assertTrue(message.startsWith(prefix), () -> "want '" + prefix + "...', got: " + message);
  }

  private static byte[] hex(String hex) {
    byte[] b = new byte[hex.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }
}
