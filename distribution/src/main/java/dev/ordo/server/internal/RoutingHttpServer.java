package dev.ordo.server.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.ordo.server.auth.Access;
import dev.ordo.server.auth.AccessRules;
import dev.ordo.server.auth.Caller;
import dev.ordo.server.auth.HttpGuard;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.StartupException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDK's {@link HttpServer} with a small router of {@code {param}} path patterns and JSON answers.
 * Its routes are a {@link RouteTable}; {@link HttpExchanges} reads a request's parts and writes answers.
 */
public final class RoutingHttpServer implements HttpRouter, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RoutingHttpServer.class);

  /** Told of every request answered: its method, the route's pattern (or null), status and duration. */
  public interface RequestObserver {
    void answered(String method, String route, int status, long nanos);
  }

  private volatile RequestObserver observer = (method, route, status, nanos) -> { };

  /** Sets who is told of every request answered (metrics). */
  public void observe(RequestObserver observer) {
    this.observer = observer;
  }

  static {
    // The JDK's server writes a response's headers and its body in two writes. With Nagle's algorithm
    // on (its default) the body waits for the client's ACK of the headers, which a client delays by up
    // to 40 ms: measured here, a Python client's enqueue took 52 ms instead of 10 (decisions D19). The
    // JDK reads the property once, when its server classes load, so it is set before the first one.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;
  /** What a request may be (413, 414, 431), with the JVM-wide limits in force. */
  private final HttpLimits limits;
  private final RouteTable table = new RouteTable();
  /** Asked before a route's handler with the request's path: a response to answer instead, or null. */
  private volatile java.util.function.Function<String, HttpResponse> gate = path -> null;
  /** While true, a request no route matches may be for one not registered yet: 503, not 404. */
  private volatile boolean starting;
  /** Who may call what (null: anyone may call anything, as {@link Caller#ANONYMOUS}). */
  private volatile HttpGuard guard;
  private final boolean tls;

  private RoutingHttpServer(HttpServer server, ExecutorService executor, HttpLimits limits) {
    this.server = server;
    this.executor = executor;
    this.limits = limits;
    this.tls = server instanceof HttpsServer;
  }

  /** Binds {@code host:port} (0 = any free port) and starts serving plain HTTP, with the default limits. */
  public static RoutingHttpServer start(String host, int port) {
    return start(host, port, HttpLimits.DEFAULTS);
  }

  /** Binds {@code host:port} (0 = any free port) and starts serving plain HTTP requests within {@code limits}. */
  public static RoutingHttpServer start(String host, int port, HttpLimits limits) {
    return start(host, port, limits, null, false);
  }

  /**
   * Binds {@code host:port} (0 = any free port) and starts serving requests within {@code limits}:
   * HTTPS with {@code tls} if not null, asking every client for a certificate when
   * {@code needClientCertificate} (mutual TLS).
   */
  public static RoutingHttpServer start(String host, int port, HttpLimits limits, javax.net.ssl.SSLContext tls,
      boolean needClientCertificate) {
    // Before the JDK's server classes initialise: they read the JVM-wide limits once.
    HttpLimits inForce = limits.applyJvmWide();
    HttpServer server;
    try {
      if (tls == null) {
        server = HttpServer.create(new InetSocketAddress(host, port), 64);
      } else {
        HttpsServer https = HttpsServer.create(new InetSocketAddress(host, port), 64);
        https.setHttpsConfigurator(new HttpsConfigurator(tls) {
          @Override
          public void configure(HttpsParameters params) {
            javax.net.ssl.SSLParameters p = tls.getDefaultSSLParameters();
            p.setNeedClientAuth(needClientCertificate);
            params.setSSLParameters(p);
          }
        });
        server = https;
      }
    } catch (BindException e) {
      if (port == 0) {
        throw new StartupException("cannot listen for HTTP on " + host + ": " + e.getMessage());
      }
      throw Ports.portInUse("HTTP port", "--http-port", port);
    } catch (IOException e) {
      throw new StartupException("cannot listen for HTTP on " + host + ":" + port + ": " + e.getMessage());
    }
    AtomicInteger n = new AtomicInteger();
    // A thread per request in flight: a dequeue long-polls for up to its waitMs, so a fixed pool
    // would let a few waiting consumers block /health, acks and the queries other instances forward
    // here (two instances forwarding to each other could then wait on each other).
    ExecutorService executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "ordo-http-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    RoutingHttpServer routing = new RoutingHttpServer(server, executor, inForce);
    server.createContext("/", routing::serve);
    server.setExecutor(executor);
    server.start();
    return routing;
  }

  /** The address clients use, e.g. {@code http://127.0.0.1:7070}. */
  public URI address() {
    InetSocketAddress a = server.getAddress();
    String host = a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return URI.create(scheme() + "://" + host + ":" + a.getPort());
  }

  private String scheme() {
    return tls ? "https" : "http";
  }

  /** Whether the port speaks TLS. */
  public boolean tls() {
    return tls;
  }

  /**
   * Sets who decides, before each request's body is read, who sent it and whether they may (and
   * writes the audit records); null: anyone may call anything.
   */
  public void guard(HttpGuard guard) {
    this.guard = guard;
  }

  /**
   * The address other machines reach this server at: the bound address, or this machine's host
   * name when bound to all interfaces (falling back to {@link #address()} if it has none).
   */
  public URI advertisedAddress() {
    InetSocketAddress a = server.getAddress();
    if (!a.getAddress().isAnyLocalAddress()) {
      return address();
    }
    try {
      String host = java.net.InetAddress.getLocalHost().getHostName();
      return URI.create(scheme() + "://" + host + ":" + a.getPort());
    } catch (IOException | IllegalArgumentException e) {
      return address();
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The limits in force: this server's, and the JVM's connection limit and request timeout. */
  public HttpLimits limits() {
    return limits;
  }

  /**
   * Sets what is asked before each request is handed to its route (with the request's path): a
   * response to answer instead (the server's 503 while Kafka is unreachable), or null to go on.
   */
  public void gate(java.util.function.Function<String, HttpResponse> gate) {
    this.gate = gate == null ? path -> null : gate;
  }

  /**
   * While {@code starting}, a request that no route matches answers 503 "starting" with
   * {@code Retry-After: 1} instead of 404: the server binds its port before its components have
   * registered their routes, and a client or health check must not take a 404 for "no such API".
   */
  public void starting(boolean starting) {
    this.starting = starting;
  }

  /** Registers a route with its own access rule (one that {@link AccessRules} does not have). */
  @Override
  public void route(String method, String path, Access access, Handler handler) {
    table.add(method, path, access, handler);
  }

  /** Every route registered, as {@code "METHOD pattern"}. */
  public List<String> routes() {
    return table.list();
  }

  @Override
  public void route(String method, String path, Handler handler) {
    table.add(method, path, handler);
  }

  private void serve(HttpExchange exchange) {
    long t0 = System.nanoTime();
    String[] matched = new String[1];
    HttpResponse response;
    try {
      response = dispatch(exchange, matched);
    } catch (Throwable e) {
      LOG.error("HTTP {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
      response = HttpResponse.error(500, "internal error: " + Messages.oneLine(e));
    }
    try {
      HttpExchanges.send(exchange, response);
    } catch (IOException e) {
      LOG.debug("Could not send the HTTP response: {}", e.toString());
    } finally {
      exchange.close();
      observer.answered(exchange.getRequestMethod(), matched[0], response.status(), System.nanoTime() - t0);
    }
  }

  /** {@code matched[0]}: set to the pattern of the route that answered, if one did. */
  private HttpResponse dispatch(HttpExchange exchange, String[] matched) throws IOException {
    String method = exchange.getRequestMethod().toUpperCase(Locale.ROOT);
    HttpResponse oversized = limits.checkHeaders(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
        exchange.getRequestHeaders());
    if (oversized != null) {
      return oversized;
    }
    String rawPath = exchange.getRequestURI().getRawPath();
    String[] raw = RouteTable.split(rawPath == null ? "/" : rawPath);
    String[] segments = new String[raw.length];
    Map<String, List<String>> query;
    try {
      for (int i = 0; i < raw.length; i++) {
        segments[i] = PercentDecoding.decode(raw[i], false, "path segment");
      }
      query = HttpExchanges.query(exchange.getRequestURI().getRawQuery());
    } catch (IllegalArgumentException e) {
      return HttpResponse.error(400, e.getMessage());
    }
    RouteTable.Match match = table.find(method, segments);
    if (match instanceof RouteTable.Match.Found found) {
      matched[0] = found.route().pattern();
      return admitted(exchange, found.route(), found.params(), method, rawPath, segments, query);
    }
    TreeSet<String> allowed = ((RouteTable.Match.NotFound) match).allowed();
    if (!allowed.isEmpty()) {
      return HttpResponse.error(405, "method " + method + " not allowed on " + rawPath + "; allowed: " + allowed)
          .withHeader("Allow", String.join(", ", allowed));
    }
    if (starting) {
      return HttpResponse.error(503, "the server is starting: " + method + " " + rawPath + " is not ready yet")
          .withHeader("Retry-After", "1");
    }
    return HttpResponse.error(404, "no such endpoint: " + method + " " + rawPath);
  }

  /** A request its route matched: the guard's admission, the body within the limits, the gate, then the handler. */
  private HttpResponse admitted(HttpExchange exchange, RouteTable.Route route, Map<String, String> params,
      String method, String rawPath, String[] segments, Map<String, List<String>> query) throws IOException {
    Map<String, List<String>> headers = HttpExchanges.headers(exchange);
    HttpGuard g = guard;
    HttpGuard.Admission admission = null;
    if (g != null) {
      Access own = table.ownRule(method, route.pattern());
      admission = g.admit(method, route.pattern(), own == null ? AccessRules.of(method, route.pattern()).orElse(null)
          : new AccessRules.Rule(own, false), params, headers,
          exchange instanceof HttpsExchange https ? https.getSSLSession() : null);
      if (admission.refused()) {
        g.answered(admission, method, rawPath, null, admission.refusal());
        return admission.refusal();
      }
    }
    HttpResponse tooLarge = limits.checkContentLength(exchange.getRequestHeaders().getFirst("Content-Length"));
    if (tooLarge != null) {
      return tooLarge;
    }
    byte[] body;
    try {
      body = HttpExchanges.readBody(exchange, limits.maxBodyBytes());
    } catch (IOException e) {
      LOG.debug("HTTP {} {}: the request body could not be read: {}", method, rawPath, e.toString());
      return HttpExchanges.unreadBody(e);
    }
    if (body == null) {
      return limits.bodyTooLarge("is longer");
    }
    HttpRequest request = new HttpRequest(method, "/" + String.join("/", segments), params, query, headers, body,
        admission == null ? Caller.ANONYMOUS : admission.caller());
    HttpResponse refused = gate.apply(request.path());
    if (refused != null) {
      return refused;
    }
    HttpResponse response = handle(route, request, method, rawPath);
    if (g != null) {
      g.answered(admission, method, rawPath, body, response);
    }
    return response;
  }

  private HttpResponse handle(RouteTable.Route route, HttpRequest request, String method, String rawPath) {
    try {
      HttpResponse response = route.handler().handle(request);
      return response == null ? HttpResponse.error(500, "handler returned no response") : response;
    } catch (IllegalArgumentException e) {
      return HttpResponse.error(400, String.valueOf(e.getMessage()));
    } catch (Exception e) {
      if (kafkaUnavailable(e)) {
        // A Kafka client gave up waiting for the cluster (metadata, a node, a request): Kafka is away.
        LOG.warn("HTTP {} {}: Kafka unavailable: {}", method, rawPath, Messages.oneLine(e));
        return HttpResponse.error(503, "Kafka is unavailable: " + Messages.oneLine(e)).withHeader("Retry-After", "1");
      }
      LOG.error("HTTP {} {} failed", method, rawPath, e);
      return HttpResponse.error(500, "internal error: " + Messages.oneLine(e));
    }
  }

  /** Whether {@code e} or one of its causes is a Kafka error that a retry may cure (a timeout, no leader, ...). */
  static boolean kafkaUnavailable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof org.apache.kafka.common.errors.RetriableException) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdown();
    try {
      executor.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}