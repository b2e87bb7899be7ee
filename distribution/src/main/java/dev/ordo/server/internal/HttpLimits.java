package dev.ordo.server.internal;

import dev.ordo.server.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one HTTP request may be, and how many connections the server holds (docs/http-api.md,
 * "Limits"; the settings are {@code dev.ordo.server.HttpServerConfig}'s).
 *
 * <p>Two kinds, because the JDK's server reads some of its own limits once per JVM:
 * <ul>
 *   <li>per server, checked by {@link RoutingHttpServer} on each request: the body's bytes (413), the
 *       request line's and headers' bytes (431, or 414 for a request line alone over it) and the
 *       header count (431), each answered with a JSON error and {@code Connection: close};</li>
 *   <li>per JVM, enforced by the JDK's server from system properties it reads when its classes
 *       initialise, that is when the process's first HTTP server starts: the connection count
 *       ({@code jdk.httpserver.maxConnections}: a connection over it is closed as soon as it is
 *       accepted) and the time a client may take to send a request, from its first byte to its body's
 *       last ({@code sun.net.httpserver.maxReqTime}, whole seconds: its connection is closed; a
 *       connection that sends nothing at all is closed after the same time or the JDK's 30 s idle
 *       interval, whichever is shorter, checked every 10 s). {@link #applyJvmWide()} sets them before
 *       the first server; a later server of the same process gets the values in force, and a warning
 *       when it asked for others (one {@code ordo server} process has one HTTP server; tests have
 *       several).</li>
 * </ul>
 * The JDK's own ceilings stay behind ours: 200 header lines and 380 KiB of request line and headers
 * ({@code sun.net.httpserver.maxReqHeaders}, {@code maxReqHeaderSize}), over which it closes the
 * connection without an answer; the settings' ranges stay below them so that ours answer first.
 */
public record HttpLimits(int maxBodyBytes, int maxHeaderBytes, int maxHeaders, int maxConnections,
    Duration requestTimeout) {
  private static final Logger LOG = LoggerFactory.getLogger(HttpLimits.class);

  public static final int DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
  public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
  public static final int DEFAULT_MAX_HEADERS = 100;
  public static final int DEFAULT_MAX_CONNECTIONS = 1000;
  public static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
  /** The JDK's own ceiling of header lines ({@code sun.net.httpserver.maxReqHeaders}, 200). */
  public static final int JDK_MAX_HEADERS = 200;
  /** Below the JDK's own ceiling of request line and header bytes ({@code maxReqHeaderSize}, 380 KiB). */
  public static final int MAX_HEADER_BYTES_CEILING = 256 * 1024;

  public static final HttpLimits DEFAULTS = new HttpLimits(DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_HEADER_BYTES,
      DEFAULT_MAX_HEADERS, DEFAULT_MAX_CONNECTIONS, Duration.ofMillis(DEFAULT_REQUEST_TIMEOUT_MS));

  static final String MAX_CONNECTIONS_PROPERTY = "jdk.httpserver.maxConnections";
  static final String MAX_REQUEST_TIME_PROPERTY = "sun.net.httpserver.maxReqTime";

  /** The JVM-wide limits the JDK's server read, once set; guarded by the class. */
  private static HttpLimits jvmWide;

  public HttpLimits {
    if (maxBodyBytes < 0 || maxHeaderBytes < 1 || maxHeaders < 1 || maxConnections < 1
        || requestTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("invalid HTTP limits: " + maxBodyBytes + ", " + maxHeaderBytes + ", "
          + maxHeaders + ", " + maxConnections + ", " + requestTimeout);
    }
  }

  /**
   * Sets the JDK's JVM-wide properties from these limits if no HTTP server of this class started in
   * this JVM yet; returns these limits with the JVM-wide values in force. Call before creating the
   * JDK's server.
   */
  HttpLimits applyJvmWide() {
    synchronized (HttpLimits.class) {
      if (jvmWide == null) {
        System.setProperty(MAX_CONNECTIONS_PROPERTY, Integer.toString(maxConnections));
        // Whole seconds: the JDK multiplies the property by 1000.
        System.setProperty(MAX_REQUEST_TIME_PROPERTY, Long.toString(requestTimeoutSeconds()));
        jvmWide = this;
      } else if (jvmWide.maxConnections != maxConnections
          || jvmWide.requestTimeoutSeconds() != requestTimeoutSeconds()) {
        LOG.warn("The HTTP connection limit and request timeout are the JVM's, read by the JDK when this process's"
            + " first HTTP server started: {} connections and {} s stay in force, not {} and {} s",
            jvmWide.maxConnections, jvmWide.requestTimeoutSeconds(), maxConnections, requestTimeoutSeconds());
      }
      return new HttpLimits(maxBodyBytes, maxHeaderBytes, maxHeaders, jvmWide.maxConnections,
          Duration.ofSeconds(jvmWide.requestTimeoutSeconds()));
    }
  }

  long requestTimeoutSeconds() {
    return (requestTimeout.toMillis() + 999) / 1000;
  }

  /**
   * The answer to a request whose request line or headers are over the limits, or null. Counted
   * as sent: the request line ({@code METHOD URI HTTP/1.1}) and each header line
   * ({@code name: value}, with its line end), in bytes of ISO-8859-1 as the JDK reads them.
   */
  HttpResponse checkHeaders(String method, String rawUri, Map<String, List<String>> headers) {
    long lineBytes = method.length() + 1 + rawUri.length() + " HTTP/1.1\r\n".length();
    if (lineBytes > maxHeaderBytes) {
      return refusal(414, "the request line is " + lineBytes + " bytes long, more than the " + maxHeaderBytes
          + " bytes allowed for the request line and headers together (ordo.server.http.headers.max.bytes)");
    }
    long bytes = lineBytes;
    int count = 0;
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      for (String value : e.getValue()) {
        count++;
        bytes += e.getKey().length() + 2 + (value == null ? 0 : value.length()) + 2;
      }
    }
    if (count > maxHeaders) {
      return refusal(431, "the request has " + count + " header lines, more than the " + maxHeaders
          + " allowed (ordo.server.http.headers.max.count)");
    }
    if (bytes > maxHeaderBytes) {
      return refusal(431, "the request line and headers come to " + bytes + " bytes, more than the "
          + maxHeaderBytes + " allowed (ordo.server.http.headers.max.bytes)");
    }
    return null;
  }

  /** 413 when the request's {@code Content-Length} says its body is over the limit; else null. */
  HttpResponse checkContentLength(String contentLength) {
    if (contentLength == null) {
      return null;
    }
    long length;
    try {
      length = Long.parseLong(contentLength.trim());
    } catch (NumberFormatException e) {
      return null; // the JDK refuses a malformed Content-Length before a handler sees it
    }
    return length > maxBodyBytes ? bodyTooLarge("is " + length + " bytes long") : null;
  }

  HttpResponse bodyTooLarge(String what) {
    return refusal(413, "the request body " + what + ", more than the " + maxBodyBytes
        + " bytes allowed (ordo.server.http.body.max.bytes)");
  }

  /** An error whose request was not read to its end: the connection cannot carry another request. */
  static HttpResponse refusal(int status, String message) {
    return HttpResponse.error(status, message).withHeader("Connection", "close");
  }
}
