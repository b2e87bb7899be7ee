package dev.ordo.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.server.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What one request may be: counted as the bytes a client sends, refused one past the limit. */
class HttpLimitsTest {
  private static final HttpLimits LIMITS = new HttpLimits(1024, 100, 3, 10, Duration.ofSeconds(1));

  private static String error(HttpResponse r) {
    return String.valueOf(((Map<?, ?>) r.body()).get("error"));
  }

  @Test
  void headersAreCountedAsSentWithTheRequestLine() {
    // "GET /a HTTP/1.1\r\n" is 17 bytes; "Host: x\r\n" 9; "X-A: <v>\r\n" 7 + v.
    String line = "GET /a HTTP/1.1\r\n";
    assertEquals(17, line.length());
    int room = 100 - 17 - 9 - 7;
    assertNull(LIMITS.checkHeaders("GET", "/a", Map.of("Host", List.of("x"), "X-A", List.of("v".repeat(room)))));
    HttpResponse over = LIMITS.checkHeaders("GET", "/a", Map.of("Host", List.of("x"), "X-A", List.of("v".repeat(room + 1))));
    assertEquals(431, over.status());
    assertEquals("close", over.headers().get("Connection"));
    assertEquals("the request line and headers come to 101 bytes, more than the 100 allowed"
        + " (ordo.server.http.headers.max.bytes)", error(over));
  }

  @Test
  void headerLinesAreCountedValueByValue() {
    assertNull(LIMITS.checkHeaders("GET", "/", Map.of("A", List.of("1", "2"), "B", List.of("3"))));
    HttpResponse over = LIMITS.checkHeaders("GET", "/", Map.of("A", List.of("1", "2"), "B", List.of("3", "4")));
    assertEquals(431, over.status());
    assertTrue(error(over).startsWith("the request has 4 header lines, more than the 3 allowed"), error(over));
  }

  @Test
  void aRequestLineOverTheLimitAloneIs414() {
    HttpResponse over = LIMITS.checkHeaders("GET", "/" + "u".repeat(100), Map.of());
    assertEquals(414, over.status());
    assertTrue(error(over).contains("ordo.server.http.headers.max.bytes"), error(over));
  }

  @Test
  void aContentLengthOverTheLimitIs413AtOnce() {
    assertNull(LIMITS.checkContentLength(null));
    assertNull(LIMITS.checkContentLength("1024"));
    assertNull(LIMITS.checkContentLength("ten"), "the JDK refuses it before a handler sees it");
    HttpResponse over = LIMITS.checkContentLength("1025");
    assertEquals(413, over.status());
    assertEquals("close", over.headers().get("Connection"));
    assertEquals("the request body is 1025 bytes long, more than the 1024 bytes allowed"
        + " (ordo.server.http.body.max.bytes)", error(over));
    assertEquals(413, LIMITS.checkContentLength(Long.toString(Long.MAX_VALUE)).status());
  }
}
