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
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The JDK's {@link HttpServer} with a small router of {@code {param}} path patterns and JSON answers. */
public final class RoutingHttpServer implements HttpRouter, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RoutingHttpServer.class);

  private record Route(String method, String pattern, String[] segments, Handler handler) {}

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
  private final List<Route> routes = new CopyOnWriteArrayList<>();
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

  /** Access rules of routes registered with one ({@link #route(String, String, Access, Handler)}), by "METHOD pattern". */
  private final Map<String, Access> ownRules = new java.util.concurrent.ConcurrentHashMap<>();

  @Override
  public void route(String method, String path, Access access, Handler handler) {
    String key = method.toUpperCase(Locale.ROOT) + " " + path;
    if (AccessRules.of(method.toUpperCase(Locale.ROOT), path).isPresent()) {
      throw new IllegalArgumentException("route " + key + " has its rule in AccessRules already");
    }
    route(method, path, handler);
    ownRules.put(key, java.util.Objects.requireNonNull(access, "access"));
  }

  /** Every route registered, as {@code "METHOD pattern"}. */
  public List<String> routes() {
    return routes.stream().map(r -> r.method + " " + r.pattern).toList();
  }

  @Override
  public void route(String method, String path, Handler handler) {
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("a route's path starts with '/': " + path);
    }
    String m = method.toUpperCase(Locale.ROOT);
    String[] segments = split(path);
    synchronized (routes) {
      for (Route r : routes) {
        if (r.method.equals(m) && samePattern(r.segments, segments)) {
          throw new IllegalArgumentException("route " + m + " " + path + " is already registered as " + r.pattern);
        }
      }
      routes.add(new Route(m, path, segments, handler));
    }
  }

  private static boolean samePattern(String[] a, String[] b) {
    if (a.length != b.length) {
      return false;
    }
    for (int i = 0; i < a.length; i++) {
      boolean pa = isParam(a[i]);
      boolean pb = isParam(b[i]);
      if (pa != pb || (!pa && !a[i].equals(b[i]))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isParam(String segment) {
    return segment.length() > 2 && segment.startsWith("{") && segment.endsWith("}");
  }

  private static String[] split(String path) {
    String p = path;
    while (p.length() > 1 && p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return Arrays.stream(p.split("/")).filter(s -> !s.isEmpty()).toArray(String[]::new);
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
      send(exchange, response);
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
    String[] raw = split(rawPath == null ? "/" : rawPath);
    String[] segments = new String[raw.length];
    Map<String, List<String>> query;
    try {
      for (int i = 0; i < raw.length; i++) {
        segments[i] = PercentDecoding.decode(raw[i], false, "path segment");
      }
      query = query(exchange.getRequestURI().getRawQuery());
    } catch (IllegalArgumentException e) {
      return HttpResponse.error(400, e.getMessage());
    }
    TreeSet<String> allowed = new TreeSet<>();
    for (Route route : routes) {
      Map<String, String> params = match(route.segments, segments);
      if (params == null) {
        continue;
      }
      if (!route.method.equals(method) && !(method.equals("HEAD") && route.method.equals("GET"))) {
        allowed.add(route.method);
        continue;
      }
      matched[0] = route.pattern;
      Map<String, List<String>> headers = headers(exchange);
      HttpGuard g = guard;
      HttpGuard.Admission admission = null;
      if (g != null) {
        Access own = ownRules.get(method + " " + route.pattern);
        admission = g.admit(method, route.pattern, own == null ? AccessRules.of(method, route.pattern).orElse(null)
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
        body = readBody(exchange, limits.maxBodyBytes());
      } catch (IOException e) {
        LOG.debug("HTTP {} {}: the request body could not be read: {}", method, rawPath, e.toString());
        return unreadBody(e);
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

  private HttpResponse handle(Route route, HttpRequest request, String method, String rawPath) {
    try {
      HttpResponse response = route.handler.handle(request);
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

  private static Map<String, String> match(String[] pattern, String[] segments) {
    if (pattern.length != segments.length) {
      return null;
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (int i = 0; i < pattern.length; i++) {
      if (isParam(pattern[i])) {
        params.put(pattern[i].substring(1, pattern[i].length() - 1), segments[i]);
      } else if (!pattern[i].equals(segments[i])) {
        return null;
      }
    }
    return params;
  }

  /**
   * The answer to a request whose body could not be read: the client closed its connection before
   * sending all it announced, or sent a malformed chunk (400), or took longer than the request
   * timeout, after which the JDK closed the connection (408). Nobody may be there to read it: it is
   * what the request counts as.
   */
  private static HttpResponse unreadBody(IOException e) {
    if (e instanceof java.nio.channels.ClosedChannelException) {
      return HttpLimits.refusal(408, "the request body did not arrive within the request timeout"
          + " (ordo.server.http.request.timeout.ms): the connection was closed");
    }
    return HttpLimits.refusal(400, "the request body could not be read: " + Messages.oneLine(e));
  }

  /** The body, or null when it is longer than {@code max} bytes (what is left of it is not read). */
  private static byte[] readBody(HttpExchange exchange, int max) throws IOException {
    // Not closed here: closing drains what is left, and a client whose body is over the limit or
    // malformed would wait for that before its answer. The JDK closes it once the answer is sent.
    InputStream in = exchange.getRequestBody();
    byte[] body = in.readNBytes(max + 1);
    return body.length > max ? null : body;
  }

  private static Map<String, List<String>> query(String rawQuery) {
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

  private static Map<String, List<String>> headers(HttpExchange exchange) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
    return headers;
  }

  private static void send(HttpExchange exchange, HttpResponse response) throws IOException {
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
