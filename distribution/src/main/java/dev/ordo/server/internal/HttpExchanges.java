package dev.ordo.server.internal;

import com.sun.net.httpserver.HttpExchange;
import dev.ordo.server.HttpResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Reading a request's parts from the JDK's {@link HttpExchange} and writing a {@link HttpResponse} to it. */
final class HttpExchanges {
  private HttpExchanges() {}

  /**
   * The answer to a request whose body could not be read: the client closed its connection before
   * sending all it announced, or sent a malformed chunk (400), or took longer than the request
   * timeout, after which the JDK closed the connection (408). Nobody may be there to read it: it is
   * what the request counts as.
   */
  static HttpResponse unreadBody(IOException e) {
    if (e instanceof java.nio.channels.ClosedChannelException) {
      return HttpLimits.refusal(408, "the request body did not arrive within the request timeout"
          + " (ordo.server.http.request.timeout.ms): the connection was closed");
    }
    return HttpLimits.refusal(400, "the request body could not be read: " + Messages.oneLine(e));
  }

  /** The body, or null when it is longer than {@code max} bytes (what is left of it is not read). */
  static byte[] readBody(HttpExchange exchange, int max) throws IOException {
    // Not closed here: closing drains what is left, and a client whose body is over the limit or
    // malformed would wait for that before its answer. The JDK closes it once the answer is sent.
    InputStream in = exchange.getRequestBody();
    byte[] body = in.readNBytes(max + 1);
    return body.length > max ? null : body;
  }

  /** The query's parameters, percent-decoded, in order; an IllegalArgumentException names a bad one. */
  static Map<String, List<String>> query(String rawQuery) {
    Map<String, List<String>> query = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return query;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = PercentDecoding.decode(eq < 0 ? pair : pair.substring(0, eq), true, "query parameter");
      String value = eq < 0 ? "" : PercentDecoding.decode(pair.substring(eq + 1), true, "query parameter " + key);
      query.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
    }
    return query;
  }

  /** The request's headers, names in lower case. */
  static Map<String, List<String>> headers(HttpExchange exchange) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
    return headers;
  }

  /** Writes {@code response}: bytes as they are, text as UTF-8, anything else as JSON; no body for HEAD. */
  static void send(HttpExchange exchange, HttpResponse response) throws IOException {
    byte[] bytes;
    Object body = response.body();
    if (body == null) {
      bytes = new byte[0];
    } else if (body instanceof byte[] b) {
      bytes = b;
    } else if (body instanceof String s && !HttpResponse.APPLICATION_JSON.equals(response.contentType())) {
      bytes = s.getBytes(StandardCharsets.UTF_8);
    } else {
      bytes = HttpResponse.JSON.writeValueAsBytes(body);
    }
    if (response.contentType() != null && bytes.length > 0) {
      exchange.getResponseHeaders().set("Content-Type", response.contentType());
    }
    response.headers().forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
    boolean head = exchange.getRequestMethod().equalsIgnoreCase("HEAD");
    if (head || bytes.length == 0) {
      exchange.sendResponseHeaders(response.status(), -1);
      return;
    }
    exchange.sendResponseHeaders(response.status(), bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
