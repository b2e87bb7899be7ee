package dev.ordo.server;

import dev.ordo.server.internal.HttpLimits;
import java.time.Duration;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The HTTP server's limits on what clients send (docs/http-api.md, "Limits"): what one request may
 * be, how many connections it holds, how long a client may take to send a request.
 */
public final class HttpServerConfig {
  public static final String BODY_MAX_BYTES_CONFIG = "ordo.server.http.body.max.bytes";
  private static final String BODY_MAX_BYTES_DOC = "Largest request body, in bytes: a longer one is answered 413"
      + " and its connection closed, without reading the rest. A body is read whole into memory before it is"
      + " parsed: this limit times the requests in flight bounds that memory. A batch enqueue of 1000 items of"
      + " 10 KiB each in base64 needs about 13 MiB.";
  public static final String HEADERS_MAX_BYTES_CONFIG = "ordo.server.http.headers.max.bytes";
  private static final String HEADERS_MAX_BYTES_DOC = "Largest request line and HTTP headers together, in bytes as"
      + " sent (each header line with its name, ': ' and line end): over it, 431 (414 when the request line alone"
      + " is over it). These are the request's HTTP headers, not an item's (ordo.headers.max.bytes). At most"
      + " 262144: beyond 380 KiB the JDK's own limit closes the connection without an answer.";
  public static final String HEADERS_MAX_COUNT_CONFIG = "ordo.server.http.headers.max.count";
  private static final String HEADERS_MAX_COUNT_DOC = "Most HTTP header lines in one request: over it, 431. At most"
      + " 200: beyond that the JDK's own limit closes the connection without an answer.";
  public static final String CONNECTIONS_MAX_CONFIG = "ordo.server.http.connections.max";
  private static final String CONNECTIONS_MAX_DOC = "Most open HTTP connections, idle keep-alive ones and long"
      + " polls included: a connection over it is closed as soon as it is accepted. Each long-polling consumer"
      + " holds one. JVM-wide: the JDK's server reads it (jdk.httpserver.maxConnections) when the process's first"
      + " HTTP server starts, so in a process with several servers the first one's value holds.";
  public static final String REQUEST_TIMEOUT_MS_CONFIG = "ordo.server.http.request.timeout.ms";
  private static final String REQUEST_TIMEOUT_MS_DOC = "Longest a client may take to send one request, from its"
      + " first byte to its body's last (the time the server then takes to answer, e.g. a long poll, is not"
      + " counted): after it the connection is closed, which frees the thread that read it. A connection that"
      + " sends nothing is closed after this or 30 s, whichever is shorter (checked every 10 s). Rounded up to"
      + " whole seconds; JVM-wide,"
      + " as " + CONNECTIONS_MAX_CONFIG + " (sun.net.httpserver.maxReqTime).";

  public static final ConfigDef CONFIG = new ConfigDef()
      .define(BODY_MAX_BYTES_CONFIG, Type.INT, HttpLimits.DEFAULT_MAX_BODY_BYTES, Range.between(1024, 512 * 1024 * 1024),
          Importance.MEDIUM, BODY_MAX_BYTES_DOC)
      .define(HEADERS_MAX_BYTES_CONFIG, Type.INT, HttpLimits.DEFAULT_MAX_HEADER_BYTES,
          Range.between(1024, HttpLimits.MAX_HEADER_BYTES_CEILING), Importance.LOW, HEADERS_MAX_BYTES_DOC)
      .define(HEADERS_MAX_COUNT_CONFIG, Type.INT, HttpLimits.DEFAULT_MAX_HEADERS,
          Range.between(1, HttpLimits.JDK_MAX_HEADERS), Importance.LOW, HEADERS_MAX_COUNT_DOC)
      .define(CONNECTIONS_MAX_CONFIG, Type.INT, HttpLimits.DEFAULT_MAX_CONNECTIONS, Range.between(1, 1_000_000),
          Importance.MEDIUM, CONNECTIONS_MAX_DOC)
      .define(REQUEST_TIMEOUT_MS_CONFIG, Type.LONG, HttpLimits.DEFAULT_REQUEST_TIMEOUT_MS,
          Range.between(1_000, 3_600_000), Importance.LOW, REQUEST_TIMEOUT_MS_DOC);

  private HttpServerConfig() {}

  /** The limits {@code settings} give (defaults where not set). */
  public static HttpLimits limits(ServerSettings settings) {
    AbstractConfig c = new AbstractConfig(CONFIG, settings.ordo(CONFIG), false);
    return new HttpLimits(c.getInt(BODY_MAX_BYTES_CONFIG), c.getInt(HEADERS_MAX_BYTES_CONFIG),
        c.getInt(HEADERS_MAX_COUNT_CONFIG), c.getInt(CONNECTIONS_MAX_CONFIG),
        Duration.ofMillis(c.getLong(REQUEST_TIMEOUT_MS_CONFIG)));
  }
}
