package dev.ordo.server.sqs;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.ordo.server.StartupException;
import dev.ordo.server.auth.Caller;
import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQS endpoint's HTTP server: reads a request in either protocol ({@code X-Amz-Target} present:
 * JSON; else the query protocol's form or URL parameters), authenticates it, hands it to
 * {@link SqsActions} and writes the answer in the request's protocol. Any request path is accepted:
 * the SDKs post to the endpoint or to a queue URL. A thread per request in flight, since a
 * ReceiveMessage long-polls for up to 20 s.
 */
public final class SqsHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SqsHttpServer.class);
  /** Largest request body: a batch of ten 256 KiB messages does not fit SQS either; this leaves room for encoding. */
  static final int MAX_BODY = 2 * 1024 * 1024;

  /** Who sent a request: {@link Caller#ANONYMOUS} when authentication is off, else the signer's principal. */
  @FunctionalInterface
  public interface Authenticator {
    Caller authenticate(SigV4.Request request) throws SqsException;
  }

  /** Told of every answer: the action (null when the request named none it could read), the status, how long. */
  @FunctionalInterface
  public interface Observer {
    Observer NONE = (action, status, nanos) -> { };

    void answered(String action, int status, long nanos);
  }

  /** Where audited calls ({@link SqsAccess#audited}) are recorded, answered or refused. */
  @FunctionalInterface
  public interface Auditor {
    Auditor NONE = (principal, action, request, status, outcome) -> { };

    void record(String principal, String action, String request, int status, String outcome);
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final SqsActions actions;
  private final Authenticator authenticator;
  private final Auditor auditor;
  private volatile Observer observer = Observer.NONE;
  private final boolean tls;

  private SqsHttpServer(HttpServer server, ExecutorService executor, SqsActions actions, Authenticator authenticator,
      Auditor auditor) {
    this.server = server;
    this.executor = executor;
    this.actions = actions;
    this.authenticator = authenticator;
    this.auditor = auditor;
    this.tls = server instanceof HttpsServer;
  }

  /** Binds {@code host:port} (0: any free port) and serves; HTTPS with {@code tls} when not null. */
  public static SqsHttpServer start(String host, int port, javax.net.ssl.SSLContext tls, SqsActions actions,
      Authenticator authenticator, Auditor auditor) {
    HttpServer server;
    try {
      if (tls == null) {
        server = HttpServer.create(new InetSocketAddress(host, port), 64);
      } else {
        HttpsServer https = HttpsServer.create(new InetSocketAddress(host, port), 64);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        server = https;
      }
    } catch (BindException e) {
      throw new StartupException("SQS port " + port + " is already in use; choose another with --sqs-port"
          + " (ordo.sqs.port; -1: any free port, 0: no SQS endpoint)");
    } catch (IOException e) {
      throw new StartupException("cannot listen for SQS on " + host + ":" + port + ": " + e.getMessage());
    }
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "ordo-sqs-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    SqsHttpServer s = new SqsHttpServer(server, executor, actions, authenticator, auditor);
    server.createContext("/", s::serve);
    server.setExecutor(executor);
    server.start();
    return s;
  }

  /** Tells {@code observer} of every answer from now on (metrics). */
  public void observe(Observer observer) {
    this.observer = observer;
  }

  /** The endpoint URL, e.g. {@code http://127.0.0.1:9324}. */
  public URI address() {
    InetSocketAddress a = server.getAddress();
    String host = a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return URI.create((tls ? "https" : "http") + "://" + host + ":" + a.getPort());
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void serve(HttpExchange exchange) {
    long t0 = System.nanoTime();
    String requestId = UUID.randomUUID().toString();
    SqsRequest.Protocol protocol = exchange.getRequestHeaders().getFirst("X-Amz-Target") != null
        ? SqsRequest.Protocol.JSON : SqsRequest.Protocol.QUERY;
    int status;
    SqsResponses.Body body;
    String queryError = null;
    SqsRequest request = null;
    Caller caller = null;
    String outcome = "done";
    try {
      byte[] raw = read(exchange.getRequestBody());
      URI uri = exchange.getRequestURI();
      Map<String, List<String>> headers = new TreeMap<>();
      exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v));
      SigV4.Request signed = new SigV4.Request(exchange.getRequestMethod(), uri.getRawPath(), uri.getRawQuery(),
          headers, raw);
      request = protocol == SqsRequest.Protocol.JSON
          ? SqsRequest.json(exchange.getRequestHeaders().getFirst("X-Amz-Target"), raw)
          : SqsRequest.query(form(uri.getRawQuery(), raw, exchange.getRequestHeaders().getFirst("Content-Type")));
      caller = authenticator.authenticate(signed);
      SqsActions.Target target = target(exchange, uri);
      if (!request.params().has("QueueUrl") && target.pathQueueUrl().isPresent()) {
        // The query protocol's older form: the request goes to the queue's URL, which names the queue.
        request.params().put("QueueUrl", target.pathQueueUrl().get());
      }
      Map<String, Object> result = actions.handle(request, caller, target);
      status = 200;
      body = SqsResponses.ok(protocol, request.action(), result, requestId);
    } catch (SqsException e) {
      status = e.error().status();
      body = SqsResponses.error(protocol, e.error(), e.getMessage(), requestId);
      queryError = SqsResponses.queryErrorHeader(e.error());
      outcome = e.error().code() + ": " + e.getMessage();
    } catch (RuntimeException e) {
      // Kafka away (a queue record not written in time, a client closing): 503, which the SDKs retry.
      SqsError error = e instanceof IllegalStateException || e instanceof org.apache.kafka.common.KafkaException
          ? SqsError.SERVICE_UNAVAILABLE : SqsError.INTERNAL_ERROR;
      if (error == SqsError.INTERNAL_ERROR) {
        LOG.error("SQS {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
      } else {
        LOG.warn("SQS {} {}: {}", exchange.getRequestMethod(), exchange.getRequestURI(), e.toString());
      }
      status = error.status();
      body = SqsResponses.error(protocol, error, error.code() + ": " + e.getMessage(), requestId);
      queryError = SqsResponses.queryErrorHeader(error);
      outcome = error.code() + ": " + e;
    }
    if (request != null && SqsAccess.audited(request.action())) {
      auditor.record(caller == null ? "unauthenticated" : caller.principal(), request.action(),
          request.params().toString(), status, outcome);
    }
    try {
      exchange.getResponseHeaders().set("Content-Type", body.contentType());
      exchange.getResponseHeaders().set("x-amzn-RequestId", requestId);
      if (queryError != null && protocol == SqsRequest.Protocol.JSON) {
        exchange.getResponseHeaders().set("x-amzn-query-error", queryError);
      }
      exchange.sendResponseHeaders(status, body.bytes().length);
      exchange.getResponseBody().write(body.bytes());
    } catch (IOException e) {
      LOG.debug("Could not send the SQS response: {}", e.toString());
    } finally {
      exchange.close();
      observer.answered(request == null ? null : request.action(), status, System.nanoTime() - t0);
    }
  }

  /**
   * The endpoint as the client addressed it (its Host header), the namespace a one-segment path names,
   * and the queue URL a two-segment path is.
   */
  private SqsActions.Target target(HttpExchange exchange, URI uri) {
    String host = exchange.getRequestHeaders().getFirst("Host");
    String endpoint = host == null || host.isBlank() ? address().toString() : (tls ? "https://" : "http://") + host;
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    String[] segments = path.replaceAll("^/+|/+$", "").split("/");
    Optional<String> namespace = segments.length == 1 && !segments[0].isEmpty()
        ? Optional.of(URLDecoder.decode(segments[0], StandardCharsets.UTF_8)) : Optional.empty();
    Optional<String> queueUrl = segments.length == 2 ? Optional.of(endpoint + "/" + segments[0] + "/" + segments[1])
        : Optional.empty();
    return new SqsActions.Target(endpoint, namespace, queueUrl);
  }

  private static byte[] read(InputStream in) throws SqsException {
    try (in) {
      byte[] bytes = in.readNBytes(MAX_BODY + 1);
      if (bytes.length > MAX_BODY) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("the request body is longer than " + MAX_BODY + " bytes");
      }
      return bytes;
    } catch (IOException e) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("the request body could not be read: " + e.getMessage());
    }
  }

  /** The query protocol's parameters: the URL's query, then a form body's. */
  static Map<String, String> form(String rawQuery, byte[] body, String contentType) throws SqsException {
    Map<String, String> out = new LinkedHashMap<>();
    parseForm(rawQuery, out);
    if (body.length > 0 && (contentType == null || contentType.toLowerCase(Locale.ROOT)
        .startsWith("application/x-www-form-urlencoded"))) {
      parseForm(new String(body, StandardCharsets.UTF_8), out);
    }
    return out;
  }

  private static void parseForm(String text, Map<String, String> out) throws SqsException {
    if (text == null || text.isEmpty()) {
      return;
    }
    for (String pair : text.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      try {
        String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        out.put(k, v);
      } catch (IllegalArgumentException e) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("malformed form parameter: " + e.getMessage());
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
