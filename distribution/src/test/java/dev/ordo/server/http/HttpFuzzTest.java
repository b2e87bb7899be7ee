package dev.ordo.server.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.server.internal.HttpLimits;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile client against a running server on a real Kafka cluster (issue 46): seeded malformed and
 * deeply nested JSON, a wrong type for every field of every body, invalid UTF-8 and base64, bodies and
 * headers over the limits, encoded path tricks against the console's files, requests cut off or
 * stalled mid-body, idle connections beyond the connection limit. Sent over raw sockets, so that
 * nothing a client library would fix up is fixed up.
 *
 * <p>For every request: the answer is a 4xx with a JSON {@code {"error"}} (a batch: 200 with every
 * entry refused), or the connection is closed; where the JDK's own parser refuses a request line or a
 * header before any handler runs, its 400 (HTML, connection closed) is allowed, and counted. Never a
 * 5xx, never a hang (every read has a timeout). After each test: a valid enqueue, dequeue and ack round
 * trip works (and one ran during the test, from another client), {@code /health} is UP, the queue's
 * stream threads are the same ones and RUNNING (a replaced thread has a new name), {@code /metrics}
 * counted no 5xx (also none the client never saw), the item held by the test is as it was (no refused
 * nack, extend or release reached it), and the namespace policy is unchanged. At the end: no item is
 * anywhere but where valid requests put it, and nothing was scheduled.
 *
 * <p>Replay a failure with its seed: {@code -Dordo.fuzz.seed=N}.
 */
@KafkaCluster
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HttpFuzzTest {
  static final long SEED = Long.getLong("ordo.fuzz.seed", 46L);
  /** How many seeded malformed bodies the first test sends, beyond the wrong type of every field. */
  static final int RANDOM_BODIES = 600;

  static final int BODY_MAX = 256 * 1024;
  static final int HEADERS_MAX_BYTES = 8 * 1024;
  static final int HEADERS_MAX_COUNT = 50;
  /**
   * JVM-wide, as the request timeout: in force only when this is the JVM's first server, which in the
   * test JVM it is not ({@link dev.ordo.server.internal.TestJvmHttpLimits} sets both first; the test reads
   * what holds).
   */
  static final int CONNECTIONS_MAX = 40;
  /** The test JVM's (TestJvmHttpLimits): the requests stalled on purpose are closed after it. */
  static final long REQUEST_TIMEOUT_MS = dev.ordo.server.internal.TestJvmHttpLimits.REQUEST_TIMEOUT_MS;

  static final String TARGET_TOPIC = "fuzz-target";
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path tmp;

  static RealKafka kafka;
  static TestServer server;
  static HttpLimits limits;
  static InetSocketAddress address;
  static Random random;

  static List<String> streamThreads;
  /** The 5xx answers /metrics counted before the fuzz: /health's 503s while the server started. */
  static List<String> errorsBefore;
  static String heldId;
  static String heldLease;
  static JsonNode heldBefore;
  static JsonNode policyBefore;
  /** Namespaces valid requests enqueued to; any other one listed was filled by a request answered 4xx. */
  static final Set<String> validNamespaces = ConcurrentHashMap.newKeySet();
  /** Namespaces the fuzz sends to (well-formed names): nothing may be in them at the end. */
  static final Set<String> fuzzNamespaces = new TreeSet<>(List.of("fz", "fz-dq", "fz-batch"));

  static final Map<String, AtomicInteger> tally = new TreeMap<>();
  static final Bystander bystander = new Bystander();

  @BeforeAll
  static void start(RealKafka cluster) throws IOException {
    long t0 = System.nanoTime();
    kafka = cluster;
    random = new Random(SEED);
    System.out.println("HttpFuzzTest seed " + SEED + " (replay with -Dordo.fuzz.seed=" + SEED + ")");
    kafka.createTopics(1, TARGET_TOPIC);
    server = TestServer.startWithConsole(kafka, "fuzz", tmp.resolve("server"), Map.of(
        "ordo.server.http.body.max.bytes", Integer.toString(BODY_MAX),
        "ordo.server.http.headers.max.bytes", Integer.toString(HEADERS_MAX_BYTES),
        "ordo.server.http.headers.max.count", Integer.toString(HEADERS_MAX_COUNT),
        "ordo.server.http.connections.max", Integer.toString(CONNECTIONS_MAX),
        "ordo.server.http.request.timeout.ms", Long.toString(REQUEST_TIMEOUT_MS)));
    limits = server.server().httpLimits();
    assertEquals(BODY_MAX, limits.maxBodyBytes());
    assertEquals(HEADERS_MAX_BYTES, limits.maxHeaderBytes());
    assertEquals(HEADERS_MAX_COUNT, limits.maxHeaders());
    System.out.println("HttpFuzzTest limits in force: " + limits);
    URI a = server.address();
    address = new InetSocketAddress(a.getHost(), a.getPort());

    roundTrip(server::post, "main");
    // An item leased for the whole test: no refused ack, nack, extend or release may touch it.
    Reply enqueued = server.post("/v1/namespaces/held/topics/t/items", "{\"payload\": \"held\", \"leaseMs\": 900000}");
    assertEquals(201, enqueued.status(), enqueued::text);
    validNamespaces.add("held");
    JsonNode item = dequeueOne(server::post, "held", "t");
    heldId = item.get("id").asText();
    heldLease = item.get("lease").asText();
    // A look-up reads the store as of the stream thread's last commit.
    await("the held item leased").atMost(Duration.ofSeconds(30)).until(() -> heldItem().get("state").asText().equals("LEASED"));
    heldBefore = heldItem();

    Reply policy = server.put("/v1/namespaces/pol/policy", POLICY.text());
    assertEquals(200, policy.status(), policy::text);
    policyBefore = server.get("/v1/namespaces/pol/policy").json();

    streamThreads = streamThreads();
    errorsBefore = serverErrors();
    String enqueue = "/v1/namespaces/fz/topics/t/items";
    stall("a request stalled mid-body", concat(head("POST", enqueue, Map.of("Content-Length", "100")),
        "{\"pay".getBytes(StandardCharsets.US_ASCII)));
    stall("a request stalled mid-headers", ("POST " + enqueue + " HTTP/1.1\r\nHost: x\r\nContent-Le")
        .getBytes(StandardCharsets.US_ASCII));
    bystander.start();
    System.out.println("HttpFuzzTest ready in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
  }

  @AfterEach
  void theServerIsUnharmed() {
    int before = bystander.completed.get();
    await("a round trip of the bystander").atMost(Duration.ofSeconds(60)).until(() -> bystander.completed.get() > before
        || !bystander.failures.isEmpty());
    assertEquals(List.of(), bystander.failures, "the bystander's round trips");
    roundTrip(server::post, "main");
    Reply health = server.get("/health");
    assertEquals(200, health.status(), health::text);
    assertEquals("UP", health.json().get("status").asText(), health::text);
    assertEquals(streamThreads, streamThreads(), "the queue's stream threads: none died or was replaced");
    assertEquals(errorsBefore, serverErrors(), "5xx answers counted by the server (before: its start's 503s)");
    JsonNode held = heldItem();
    for (String field : List.of("state", "attempts", "leaseExpiresAt", "leaseHolder")) {
      assertEquals(heldBefore.get(field), held.get(field), () -> "the held item's " + field + ": " + held);
    }
    assertEquals(policyBefore, server.get("/v1/namespaces/pol/policy").json(), "the policy of namespace pol");
  }

  @AfterAll
  static void stop() throws Exception {
    long t0 = System.nanoTime();
    try {
      if (server != null && heldBefore != null) {
        bystander.stop();
        nothingButWhatValidRequestsPut();
        Reply ack = server.post("/v1/items/" + heldId + "/ack", Map.of("lease", heldLease));
        assertEquals(200, ack.status(), () -> "the held item keeps its lease: " + ack.text());
      }
    } finally {
      System.out.println("HttpFuzzTest seed " + SEED + ": " + tally + "; final checks took "
          + (System.nanoTime() - t0) / 1_000_000 + " ms");
      if (server != null) {
        server.close();
      }
    }
  }

  // ---- the fuzz ----

  @Test
  @Order(1)
  void badBodiesAreRefusedWithAJsonErrorAndChangeNothing() {
    String item = "/v1/items/" + heldId;
    Map<String, Body> singles = new LinkedHashMap<>();
    singles.put("/v1/namespaces/fz/topics/t/items", ENQUEUE);
    singles.put("/v1/namespaces/fz/topics/t/items#base64", ENQUEUE_BASE64);
    singles.put("/v1/namespaces/fz-dq/dequeue", DEQUEUE);
    singles.put(item + "/ack", lease(ACK));
    singles.put(item + "/nack", lease(NACK));
    singles.put(item + "/nack#base64", lease(NACK_BASE64));
    singles.put(item + "/extend", lease(EXTEND));
    singles.put(item + "/release", lease(ACK));
    singles.put("/v1/schedule", SCHEDULE);
    singles.put("/v1/schedule#base64", SCHEDULE_BASE64);
    singles.put("PUT /v1/namespaces/pol/policy", POLICY);
    singles.put("/v1/dlq/redrive", REDRIVE);
    singles.put("/v1/dlq/purge", PURGE);

    // A wrong type or value for every field of every body, one at a time.
    singles.forEach((target, body) -> body.fields.forEach((field, kind) -> {
      for (String bad : kind.bad) {
        sendBody(target, body.with(field, bad).render(), field + "=" + abbreviate(bad));
      }
    }));
    sendBody("/v1/namespaces/fz/topics/t/items", ENQUEUE.with("payloadBase64", "\"cA==\"").render(), "both payloads");
    sendBody("/v1/schedule", SCHEDULE.with("dueAt", "\"2099-01-01T00:00:00Z\"").render(), "delayMs and dueAt");
    for (Map.Entry<String, Body> e : singles.entrySet()) {
      sendBody(e.getKey(), e.getValue().with("unknownField", "1").render(), "an unknown field");
    }
    // Batches: an entry with a wrong field is answered alone (200, that entry 4xx), a wrong body as a whole.
    Map<String, Body> batches = new LinkedHashMap<>();
    batches.put("/v1/items/ack", lease(ACK).with("id", quoted(heldId)));
    batches.put("/v1/items/nack", lease(NACK).with("id", quoted(heldId)));
    batches.put("/v1/items/extend", lease(EXTEND).with("id", quoted(heldId)));
    batches.put("/v1/items/release", lease(ACK).with("id", quoted(heldId)));
    batches.put("/v1/namespaces/fz-batch/items", ENQUEUE.with("topic", "\"t\""));
    batches.forEach((target, entry) -> {
      Map<String, Kind> fields = new LinkedHashMap<>(entry.fields);
      if (entry.values.containsKey("id")) {
        fields.put("id", Kind.ITEM_ID);
      }
      if (entry.values.containsKey("topic")) {
        fields.put("topic", Kind.TOPIC_NAME);
      }
      fields.forEach((field, kind) -> {
        for (String bad : kind.bad) {
          sendBody(target, "{\"items\": [" + entry.with(field, bad).text() + "]}", "entry " + field + "=" + abbreviate(bad));
        }
      });
      for (String items : List.of("5", "\"x\"", "{}", "[]", "null", "[5]", "[[]]", "[null]",
          "[" + String.join(",", java.util.Collections.nCopies(1001, entry.text())) + "]")) {
        sendBody(target, "{\"items\": " + items + "}", "items=" + abbreviate(items));
      }
    });
    // Bad names and IDs in the path, with bodies that would otherwise be accepted.
    for (String name : BAD_PATH_NAMES) {
      sendBody("/v1/namespaces/" + name + "/topics/t/items", ENQUEUE.render(), "namespace " + name);
      sendBody("/v1/namespaces/fz/topics/" + name + "/items", ENQUEUE.render(), "topic " + name);
      sendBody("PUT /v1/namespaces/" + name + "/policy", POLICY.render(), "policy of " + name);
    }
    sendBody("/v1/namespaces/fz/topics/*/items", ENQUEUE.render(), "topic *");
    for (String id : BAD_ITEM_IDS) {
      sendBody("/v1/items/" + id + "/ack", "{\"lease\": \"" + heldLease + "\"}", "item id " + id);
      sendBody("/v1/items/" + id + "/extend", "{\"lease\": \"" + heldLease + "\", \"leaseMs\": 1000}", "item id " + id);
    }

    // Seeded: a valid body broken by one of the ways below.
    List<String> targets = new ArrayList<>(singles.keySet());
    for (int i = 0; i < RANDOM_BODIES; i++) {
      String target = targets.get(random.nextInt(targets.size()));
      Body base = singles.get(target);
      Breaker breaker = BREAKERS.get(random.nextInt(BREAKERS.size()));
      byte[] broken = breaker.apply.apply(base);
      sendBody(target, broken, "#" + i + " " + breaker.name);
    }
  }

  @Test
  @Order(2)
  void bodiesAndHeadersOverTheLimitsAre413And431OrClosed() throws Exception {
    String enqueue = "/v1/namespaces/fz/topics/t/items";
    byte[] big = padded(BODY_MAX + 1);
    // The whole body sent: 413, or closed while the client still wrote.
    assertStatusOrClosed(413, "a body over the limit", exchange(post(enqueue, Map.of(), big)));
    // Only the headers: the server answers from Content-Length, without waiting for the body.
    assertStatusOrClosed(413, "Content-Length over the limit", exchange(head("POST", enqueue,
        Map.of("Content-Length", Long.toString(1L << 40)))));
    Answer chunked = exchange(concat(head("POST", enqueue, Map.of("Transfer-Encoding", "chunked")),
        chunked(big)));
    assertStatusOrClosed(413, "a chunked body over the limit", chunked);
    assertRefused("exactly at the limit: a valid size but not JSON", exchange(post(enqueue, Map.of(), padded(BODY_MAX))));

    // Headers: one too big, too many small ones, many medium ones, a request line too long; on any path.
    for (String path : List.of(enqueue, "/health", "/nowhere")) {
      byte[] body = path.equals(enqueue) ? ENQUEUE.render() : new byte[0];
      assertStatus(431, "one header over the limit on " + path,
          exchange(request("POST", path, Map.of("X-Big", "b".repeat(HEADERS_MAX_BYTES)), body)));
      assertStatus(431, "too many headers on " + path, exchange(request("POST", path, headers(HEADERS_MAX_COUNT + 1, 10), body)));
      assertStatus(431, "headers over the limit together on " + path, exchange(request("POST", path,
          headers(HEADERS_MAX_COUNT - 5, HEADERS_MAX_BYTES / (HEADERS_MAX_COUNT - 10)), body)));
      assertStatus(414, "a request line over the limit on " + path,
          exchange(request("POST", path + "?q=" + "u".repeat(HEADERS_MAX_BYTES), Map.of(), body)));
    }
    // Beyond the JDK's own ceilings (200 lines, 380 KiB): it closes the connection.
    assertRefused("300 headers", exchange(request("POST", enqueue, headers(300, 10), ENQUEUE.render())), true);
    assertRefused("a 1 MiB header", exchange(request("POST", enqueue, Map.of("X-Huge", "h".repeat(1 << 20)),
        ENQUEUE.render())), true);
    // Malformed framing, refused by the JDK's parser or ours.
    for (Map<String, String> framing : List.of(Map.of("Content-Length", "-1"), Map.of("Content-Length", "ten"),
        Map.of("Content-Length", "99999999999999999999999"), Map.of("Transfer-Encoding", "gzip"),
        Map.of("Transfer-Encoding", "chunked", "Content-Length", "5"), Map.of("X Bad Name", "1"),
        Map.of("X-Bad\u0001", "1"))) {
      assertRefused("framing " + framing, exchange(concat(head("POST", enqueue, framing), ENQUEUE.render())), true);
    }
    for (String chunks : List.of("zz\r\n{}\r\n0\r\n\r\n", "3\r\n{}\r\n0\r\n\r\n", "2\r\n{}XX0\r\n\r\n",
        "-1\r\n\r\n", "ffffffffffffffffff\r\n{}\r\n0\r\n\r\n", "2;" + "e".repeat(70000) + "\r\n{}\r\n0\r\n\r\n")) {
      assertRefused("a malformed chunked body " + abbreviate(chunks), exchange(concat(
          head("POST", enqueue, Map.of("Transfer-Encoding", "chunked")), chunks.getBytes(StandardCharsets.ISO_8859_1))), true);
    }
    // Bad request lines.
    for (String line : List.of("POST", "POST /v1/namespaces/fz/topics/t/items", "POST  HTTP/1.1", "\u0000 / HTTP/1.1",
        "POST /v1/namespaces/fz/topics/t/items HTTP/9.9", "POST /v1/namespaces/%zz/topics/t/items HTTP/1.1",
        "POST /v1/namespaces/a b/topics/t/items HTTP/1.1", "POST http://[::1/v1 HTTP/1.1", "GARBAGE")) {
      byte[] body = "{}".getBytes(StandardCharsets.US_ASCII); // refused wherever the line leads
      assertRefused("request line " + line, exchange(concat((line + "\r\nHost: x\r\nContent-Length: " + body.length
          + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), body)), true);
    }
    assertRefused("method FOO", exchange(request("FOO", enqueue, Map.of(), ENQUEUE.render())));
  }

  @Test
  @Order(3)
  void encodedPathTricksNeverReachAFileOutsideTheConsole() {
    Answer index = exchange(request("GET", "/console/index.html", Map.of(), new byte[0]));
    assertEquals(200, index.status, index::toString);
    String page = new String(index.body, StandardCharsets.UTF_8);
    for (String path : PATH_TRICKS) {
      Answer a = exchange(request("GET", path, Map.of(), new byte[0]));
      assertRefused("GET " + path, a, true);
      String text = new String(a.body, StandardCharsets.ISO_8859_1);
      assertFalse(text.contains("root:") || text.equals(page), () -> "GET " + path + " served a file: " + a);
    }
    for (String path : List.of("/console/..\\..\\etc\\passwd", "/console/index.html\u0000", "/console/\u00c0\u00ae\u00c0\u00ae/etc/passwd",
        "/console/\u00ff")) {
      Answer a = exchange(concat(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.ISO_8859_1)));
      assertRefused("GET raw " + abbreviate(path), a, true);
    }
    // Names: malformed UTF-8 once percent-decoded is refused, not turned into replacement characters.
    for (String name : List.of("%c0%ae%c0%ae", "%ff", "%ed%a0%80", "a%e0%80%afb", "%f4%90%80%80")) {
      sendBody("/v1/namespaces/" + name + "/topics/t/items", ENQUEUE.render(), "namespace " + name);
      sendBody("/v1/namespaces/fz/topics/" + name + "/items", ENQUEUE.render(), "topic " + name);
    }
    // A name sent as raw UTF-8 bytes (curl sends what it is given) is that name, not its bytes read as Latin-1.
    byte[] raw = request("POST", "/v1/namespaces/caf\u00c3\u00a9/topics/t/items", Map.of(),
        "{\"payload\": \"p\"}".getBytes(StandardCharsets.US_ASCII));
    validNamespaces.add("café");
    Answer utf8 = exchange(raw);
    assertEquals(201, utf8.status, utf8::toString);
    JsonNode item = dequeueOne(server::post, "caf%C3%A9", "t");
    assertEquals("café", item.get("namespace").asText(), item::toString);
    assertEquals(200, server.post("/v1/items/" + item.get("id").asText() + "/ack",
        Map.of("lease", item.get("lease").asText())).status());
  }

  @Test
  @Order(4)
  void requestsCutOffOrStalledMidBodyEndWithoutAnAnswerOrAJsonError() throws Exception {
    String enqueue = "/v1/namespaces/fz/topics/t/items";
    byte[] body = ENQUEUE.render();
    // The client says more than it sends, then stops writing: an answer it can still read, never a 5xx.
    for (int sent : List.of(0, 1, body.length / 2, body.length - 1)) {
      byte[] head = head("POST", enqueue, Map.of("Content-Length", Integer.toString(body.length)));
      try (Socket s = connect()) {
        s.getOutputStream().write(concat(head, java.util.Arrays.copyOf(body, sent)));
        s.shutdownOutput();
        assertRefused("a body cut off after " + sent + " of " + body.length + " bytes", read(s));
      }
    }
    try (Socket s = connect()) {
      s.getOutputStream().write(concat(head("POST", enqueue, Map.of("Transfer-Encoding", "chunked")),
          "10\r\n{\"payload\"".getBytes(StandardCharsets.US_ASCII)));
      s.shutdownOutput();
      assertRefused("a chunked body cut off", read(s));
    }
    // Then closes without waiting: nothing to read; the server must not count an error of its own.
    for (int i = 0; i < 20; i++) {
      try (Socket s = connect()) {
        s.getOutputStream().write(concat(head("POST", enqueue, Map.of("Content-Length", "100000")), body));
      }
    }
    // Stalled since the server started (the bystander's round trips ran meanwhile): closed after the timeout.
    long timeoutMs = limits.requestTimeout().toMillis();
    for (CompletableFuture<Stalled> f : stalled) {
      Stalled s = f.get(timeoutMs + 30_000, TimeUnit.MILLISECONDS);
      assertRefused(s.what, s.answer);
      assertTrue(s.closedAfterMs >= timeoutMs - 500 && s.closedAfterMs < timeoutMs + 5_000,
          () -> s.what + " closed after " + s.closedAfterMs + " ms, the request timeout is " + timeoutMs + " ms");
    }
  }

  /** A request stalled on purpose, how it ended and when. */
  record Stalled(String what, Answer answer, long closedAfterMs) {}

  static final List<CompletableFuture<Stalled>> stalled = new ArrayList<>();

  /** Sends {@code bytes}, then nothing more; a thread of its own reads until the server closes the connection. */
  static void stall(String what, byte[] bytes) throws IOException {
    Socket s = connect();
    s.setSoTimeout((int) limits.requestTimeout().toMillis() + 10_000);
    s.getOutputStream().write(bytes);
    long t0 = System.nanoTime();
    stalled.add(CompletableFuture.supplyAsync(() -> {
      try (s) {
        Answer a = read(s);
        return new Stalled(what, a, (System.nanoTime() - t0) / 1_000_000);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, r -> new Thread(r, "fuzz-stalled").start()));
  }

  @Test
  @Order(5)
  void connectionsBeyondTheLimitAreClosedAndTheServerRecovers() throws Exception {
    bystander.pause();
    List<SocketChannel> idle = new ArrayList<>();
    try (Socket early = connect()) {
      // A keep-alive connection opened before the slots fill keeps being served.
      early.setSoTimeout(10_000);
      keepAliveGet(early, "/health", 200);
      int extra = 16;
      for (int i = 0; i < limits.maxConnections() + extra; i++) {
        SocketChannel c = SocketChannel.open();
        c.socket().connect(address, 5_000);
        c.configureBlocking(false);
        idle.add(c);
      }
      await("connections over the limit closed").atMost(Duration.ofSeconds(10))
          .until(() -> closed(idle) >= extra);
      long open = idle.size() - closed(idle);
      assertTrue(open <= limits.maxConnections(), () -> open + " open connections, limit " + limits.maxConnections());
      keepAliveGet(early, "/health", 200);
      // One more is closed at once, while the slots are held (an idle one may time out meanwhile: then it is answered).
      try (Socket late = connect()) {
        Answer a = exchange(late, request("GET", "/health", Map.of(), new byte[0]));
        assertTrue(!a.answered() || a.status == 200, a::toString);
        tally("closed at the connection limit", !a.answered());
      }
    } finally {
      for (SocketChannel c : idle) {
        c.close();
      }
      bystander.resume();
    }
    await("served again").atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> server.get("/health").status() == 200);
  }

  // ---- invariants ----

  static List<String> streamThreads() {
    return server.queue().service().streams().metadataForLocalThreads().stream()
        .map(t -> t.threadName() + " " + t.threadState())
        .sorted().toList();
  }

  static List<String> serverErrors() {
    Reply metrics = server.get("/metrics");
    assertEquals(200, metrics.status());
    return metrics.text().lines()
        .filter(l -> l.startsWith("ordo_http_requests_seconds_count") && l.contains("status=\"5"))
        .toList();
  }

  static JsonNode heldItem() {
    Reply r = server.get("/v1/items/" + heldId);
    assertEquals(200, r.status(), r::text);
    return r.json();
  }

  static void nothingButWhatValidRequestsPut() throws Exception {
    for (String ns : fuzzNamespaces) {
      Reply r = server.post("/v1/namespaces/" + ns + "/dequeue", "{\"topics\": {\"*\": 1000}, \"waitMs\": 300}");
      assertEquals(200, r.status(), r::text);
      assertEquals(0, r.json().get("items").size(), () -> "items in " + ns + ": " + r.text());
    }
    // The topics table lags by a second: what a refused request enqueued would show within it, delayed items too.
    await("only valid namespaces listed").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(20)).until(() -> {
      Reply r = server.get("/v1/namespaces?topics=true");
      assertEquals(200, r.status(), r::text);
      for (JsonNode ns : r.json().get("namespaces")) {
        String name = ns.get("namespace").asText();
        assertTrue(validNamespaces.contains(name), () -> "namespace " + name + " has items: " + r.text());
        if (name.equals("held")) {
          assertEquals(1, ns.get("leased").asInt(), r::text);
          assertEquals(0, ns.get("ready").asInt() + ns.get("delayed").asInt() + ns.get("parked").asInt()
              + ns.get("overflow").asInt(), r::text);
        }
      }
      return true;
    });
    try (Admin admin = kafka.admin()) {
      Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
          .filter(t -> t.equals(TARGET_TOPIC) || t.startsWith("fuzz.delay.")).collect(Collectors.toSet());
      assertTrue(topics.size() > 1, topics::toString);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).forEach((t, d) ->
          d.partitions().forEach(p -> latest.put(new TopicPartition(t, p.partition()), OffsetSpec.latest())));
      admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, info) ->
          assertEquals(0, info.offset(), () -> "records scheduled by refused requests on " + tp));
    }
    // Seconds after the last request: also the answers counted after the last test's own check.
    assertEquals(errorsBefore, serverErrors(), "5xx answers counted by the server");
  }

  // ---- valid clients ----

  @FunctionalInterface
  interface Poster {
    Reply post(String path, Object body);
  }

  /** A valid enqueue, dequeue and ack of one item of {@code topic} (one client's own) through {@code post}. */
  static void roundTrip(Poster post, String topic) {
    validNamespaces.add("rt");
    String payload = "rt-" + System.nanoTime();
    Reply enqueued = post.post("/v1/namespaces/rt/topics/" + topic + "/items", Map.of("payload", payload));
    assertEquals(201, enqueued.status(), enqueued::text);
    JsonNode item = dequeueOne(post, "rt", topic);
    assertEquals(payload, item.get("payload").asText(), item::toString);
    Reply ack = post.post("/v1/items/" + item.get("id").asText() + "/ack", Map.of("lease", item.get("lease").asText()));
    assertEquals(200, ack.status(), ack::text);
  }

  static JsonNode dequeueOne(Poster post, String ns, String topic) {
    JsonNode[] got = new JsonNode[1];
    await("a dequeue from " + ns).atMost(Duration.ofSeconds(30)).until(() -> {
      Reply r = post.post("/v1/namespaces/" + ns + "/dequeue", Map.of("topics", Map.of(topic, 1), "waitMs", 2000));
      assertEquals(200, r.status(), r::text);
      if (r.json().get("items").isEmpty()) {
        return false;
      }
      got[0] = r.json().get("items").get(0);
      return true;
    });
    return got[0];
  }

  /**
   * Valid round trips on a client of its own (java.net.http, one kept-alive connection) while the fuzz
   * runs; paused while the connection slots are held on purpose.
   */
  static final class Bystander {
    final AtomicInteger completed = new AtomicInteger();
    final List<String> failures = new CopyOnWriteArrayList<>();
    final Semaphore turn = new Semaphore(1);
    final AtomicBoolean running = new AtomicBoolean(true);
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    Thread thread;

    void start() {
      thread = new Thread(() -> {
        while (running.get()) {
          try {
            turn.acquire();
          } catch (InterruptedException e) {
            return;
          }
          try {
            if (running.get()) {
              roundTrip(this::post, "bystander");
              completed.incrementAndGet();
            }
          } catch (Throwable e) {
            failures.add(e.toString());
          } finally {
            turn.release();
          }
        }
      }, "fuzz-bystander");
      thread.setDaemon(true);
      thread.start();
    }

    Reply post(String path, Object body) {
      try {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.address() + path))
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
        var r = http.send(request, BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.body().isEmpty() ? null : JSON.readTree(r.body()), r.headers(), r.body());
      } catch (IOException e) {
        throw new IllegalStateException("bystander: " + path + ": " + e, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    void pause() throws InterruptedException {
      turn.acquire();
    }

    void resume() {
      turn.release();
    }

    void stop() throws InterruptedException {
      running.set(false);
      if (thread != null) {
        thread.join(60_000);
      }
    }
  }

  // ---- bodies ----

  /** The ways a field can be wrong: JSON texts that no endpoint may accept for a field of that kind. */
  enum Kind {
    TEXT("5", "1.5", "true", "false", "[]", "{}", "[\"x\"]", "{\"a\": \"b\"}"),
    REQUIRED_TEXT(TEXT, "null"),
    LEASE(REQUIRED_TEXT, "\"\""),
    BASE64("\"not base64!\"", "\"a\"", "\"YQ=x\"", "\"YW Jj\"", "\"Y===\"", "\"\\u00e9t\\u00e9\"", "5", "[]", "{}"),
    INT32("\"5\"", "1.5", "1e3", "2147483648", "-2147483649", "99999999999999999999999", "true", "[]", "{}"),
    MILLIS("-1", "\"10\"", "1.5", "1e400", "9223372036854775808", "-9223372036854775809", "true", "[]", "{}"),
    POSITIVE_MILLIS(MILLIS, "0"),
    REQUIRED_POSITIVE_MILLIS(POSITIVE_MILLIS, "null"),
    COUNT("0", "-5", "2147483648", "\"3\"", "2.5", "true", "[]", "{}"),
    LONG_COUNT("0", "-1", "\"5\"", "1.5", "9223372036854775808", "true", "[]", "{}"),
    BOOL("\"true\"", "1", "0", "\"yes\"", "[]", "{}"),
    NAME("\"\"", "\"a/b\"", "\"a\\u0001b\"", "\"*x\\u007f\"", quoted("g".repeat(201)), "5", "[]", "{}"),
    ITEM_ID("5", "\"\"", "\"abc\"", "\"1-\"", "\"1-x\"", "\"-1-5\"", "\"1-99999999999999999999\"", "\"99999-0\"", "[]"),
    TOPIC_NAME("5", "\"\"", "\"a/b\"", "\"*\"", "\"a\\u0000\"", "[]", "null"),
    HEADERS("5", "\"x\"", "[]", "{\"h\": 5}", "{\"h\": {}}", "{\"h\": []}", "{\"h\": true}", "{\"ordo.x\": \"v\"}",
        "{\"\": \"v\"}", "{\"h\": " + quoted("v".repeat(9000)) + "}"),
    HEADERS_BASE64("{\"h\": \"!!\"}", "{\"h\": 5}", "[]", "\"x\"", "{\"ordo.y\": \"YQ==\"}", "{\"h\": \"a\"}"),
    RECORD_HEADERS("5", "\"x\"", "[]", "{\"h\": 5}", "{\"h\": []}"),
    PAYLOAD(REQUIRED_TEXT, quoted("p".repeat(10241))),
    TOPICS("null", "5", "\"t\"", "[]", "{}", "{\"t\": 0}", "{\"t\": -1}", "{\"t\": \"1\"}", "{\"t\": 1.5}", "{\"t\": null}",
        "{\"t\": 1001}", "{\"a/b\": 1}", "{\"\": 1}", "{\"t\": 2147483648}", "{\"t\": []}", "{\"t\": 600, \"u\": 600}"),
    WAIT("-1", "20001", "\"5\"", "1.5", "true", "[]"),
    TARGET("null", "5", "\"\"", "\"no-such-topic\"", "[]", "{}"),
    DUE("null", "\"yesterday\"", "5", "\"2026-13-01T00:00:00Z\"", "\"\"", "[]"),
    SCHEDULE_DELAY(MILLIS, "null"),
    DEFAULTS("5", "[]", "\"x\"", "true", "{\"leaseMs\": 0}", "{\"leaseMs\": \"1\"}", "{\"ttlMs\": -1}", "{\"maxAttempts\": 0}",
        "{\"maxAttempts\": 2147483648}", "{\"atMostOnce\": \"no\"}", "{\"maxPayloadBytes\": -1}", "{\"maxPayloadBytes\": 1.5}",
        "{\"extra\": 1}"),
    RATE("5", "[]", "\"x\"", "{}", "{\"perSecond\": 0}", "{\"perSecond\": -1}", "{\"perSecond\": \"5\"}", "{\"perSecond\": 1e400}",
        "{\"perSecond\": 5, \"burst\": 0}", "{\"perSecond\": 5, \"burst\": 1.5}", "{\"perSecond\": 5, \"extra\": 1}",
        "{\"perSecond\": []}", "{\"perSecond\": {}}"),
    OVERRIDES("5", "[]", "\"x\"", "{\"g\": 0}", "{\"g\": \"1\"}", "{\"g\": 1.5}", "{\"a/b\": 1}", "{\"g\": 2147483648}",
        "{\"g\": []}", "{\"g\": null}"),
    WEIGHTS("5", "[]", "{\"g\": 0}", "{\"g\": -1}", "{\"g\": \"1\"}", "{\"g\": 1e400}", "{\"g\": []}", "{\"\": 1}",
        "{\"g\": null}"),
    GROUP_CONCURRENCY(COUNT),
    SELECTION_IDS("5", "\"x\"", "[]", "[5]", "[\"abc\"]", "[\"1-\"]", "{}", "["
        + String.join(",", java.util.Collections.nCopies(1001, "\"0-0\"")) + "]"),
    FILTER("5", "\"x\"", "[]", "{}", "{\"reason\": \"NOPE\"}", "{\"from\": \"yesterday\"}", "{\"x\": 1}",
        "{\"namespace\": 5}", "{\"namespace\": \"a/b\"}"),
    RATE_PER_SECOND("0", "-1", "\"5\"", "[]", "1e400"),
    DLQ_PRIORITY("\"1\"", "1.5", "2147483648", "[]");

    final List<String> bad;

    Kind(String... bad) {
      this.bad = List.of(bad);
    }

    Kind(Kind base, String... more) {
      List<String> all = new ArrayList<>(base.bad);
      all.addAll(List.of(more));
      this.bad = List.copyOf(all);
    }
  }

  /** A valid body as fields of raw JSON, and the kind of each field that is fuzzed. */
  record Body(Map<String, String> values, Map<String, Kind> fields) {
    Body with(String field, String json) {
      Map<String, String> v = new LinkedHashMap<>(values);
      if (json.equals("null") && !fields.containsKey(field)) {
        v.remove(field);
      } else {
        v.put(field, json);
      }
      return new Body(v, fields);
    }

    String text() {
      return values.entrySet().stream().map(e -> quoted(e.getKey()) + ": " + e.getValue())
          .collect(Collectors.joining(", ", "{", "}"));
    }

    byte[] render() {
      return text().getBytes(StandardCharsets.UTF_8);
    }
  }

  static Body body(Object... fieldValueKind) {
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, Kind> fields = new LinkedHashMap<>();
    for (int i = 0; i < fieldValueKind.length; i += 3) {
      values.put((String) fieldValueKind[i], (String) fieldValueKind[i + 1]);
      fields.put((String) fieldValueKind[i], (Kind) fieldValueKind[i + 2]);
    }
    return new Body(values, fields);
  }

  static final Body ENQUEUE = body("payload", "\"p\"", Kind.PAYLOAD, "priority", "1", Kind.INT32, "delayMs", "0", Kind.MILLIS,
      "leaseMs", "30000", Kind.POSITIVE_MILLIS, "ttlMs", "600000", Kind.POSITIVE_MILLIS, "maxAttempts", "3", Kind.COUNT,
      "atMostOnce", "false", Kind.BOOL, "groupKey", "\"g\"", Kind.NAME, "metadata", "\"m\"", Kind.TEXT,
      "headers", "{\"h\": \"v\"}", Kind.HEADERS);
  static final Body ENQUEUE_BASE64 = body("payloadBase64", "\"cA==\"", Kind.BASE64, "metadataBase64", "\"bQ==\"", Kind.BASE64,
      "headersBase64", "{\"h\": \"dg==\"}", Kind.HEADERS_BASE64);
  static final Body DEQUEUE = body("topics", "{\"t\": 1}", Kind.TOPICS, "waitMs", "0", Kind.WAIT);
  static final Body ACK = body("lease", "\"?\"", Kind.LEASE);
  static final Body NACK = body("lease", "\"?\"", Kind.LEASE, "delayMs", "0", Kind.MILLIS, "metadata", "\"m\"", Kind.TEXT,
      "error", "\"e\"", Kind.TEXT, "deadLetter", "false", Kind.BOOL);
  static final Body NACK_BASE64 = body("lease", "\"?\"", Kind.LEASE, "metadataBase64", "\"bQ==\"", Kind.BASE64);
  static final Body EXTEND = body("lease", "\"?\"", Kind.LEASE, "leaseMs", "60000", Kind.REQUIRED_POSITIVE_MILLIS);
  static final Body SCHEDULE = body("topic", quoted(TARGET_TOPIC), Kind.TARGET, "key", "\"k\"", Kind.TEXT, "value", "\"v\"",
      Kind.TEXT, "headers", "{\"h\": \"v\"}", Kind.RECORD_HEADERS, "delayMs", "60000", Kind.SCHEDULE_DELAY);
  static final Body SCHEDULE_BASE64 = body("topic", quoted(TARGET_TOPIC), Kind.TARGET, "keyBase64", "\"aw==\"", Kind.BASE64,
      "valueBase64", "\"dg==\"", Kind.BASE64, "dueAt", "\"2099-01-01T00:00:00Z\"", Kind.DUE);
  static final Body POLICY = body(
      "defaults", "{\"leaseMs\": 120000, \"ttlMs\": 86400000, \"maxAttempts\": 3, \"atMostOnce\": false, \"maxPayloadBytes\": 4096}",
      Kind.DEFAULTS, "admissionRate", "{\"perSecond\": 500, \"burst\": 1000}", Kind.RATE, "maxBacklog", "100000",
      Kind.LONG_COUNT, "dispatchRate", "{\"perSecond\": 200}", Kind.RATE, "sidelineAfterMs", "30000", Kind.LONG_COUNT,
      "groupConcurrency", "2", Kind.GROUP_CONCURRENCY, "groupConcurrencyOverrides", "{\"a\": 1}", Kind.OVERRIDES,
      "groupWeights", "{\"a\": 2}", Kind.WEIGHTS);
  static final Body REDRIVE = body("filter", "{\"namespace\": \"fz-none\"}", Kind.FILTER, "namespace", "\"fz\"", Kind.NAME,
      "topic", "\"t\"", Kind.NAME, "priority", "1", Kind.DLQ_PRIORITY, "ratePerSecond", "10", Kind.RATE_PER_SECOND,
      "delayMs", "0", Kind.MILLIS);
  static final Body PURGE = body("ids", "[\"0-0\"]", Kind.SELECTION_IDS);

  /** {@code body} with the held item's lease. */
  static Body lease(Body body) {
    return body.with("lease", quoted(heldLease));
  }

  static final List<String> BAD_PATH_NAMES = List.of("%00", "a%00b", "%2F", "a%2Fb", "%7F", "%20%0A", "x".repeat(201),
      "%c0%ae%c0%ae", "%ff%fe", "%ed%a0%80");
  static final List<String> BAD_ITEM_IDS = List.of("abc", "1-", "-1-1", "1--1", "1-1-1", "%20", "%00", "1-99999999999999999999",
      "99999999999-1", "0x1-1", "%c0%ae");
  static final List<String> PATH_TRICKS = List.of("/console/..%2F..%2Fetc%2Fpasswd", "/console/%2e%2e/%2e%2e/etc/passwd",
      "/console/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/console/../../etc/passwd", "/console/..%5c..%5cetc%5cpasswd",
      "/console/index.html%00", "/console/index.html%00.js", "/console/%00", "/console/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
      "/console/%c0%af", "/console/..%c0%af..%c0%afetc%c0%afpasswd", "/console/%e0%80%ae%e0%80%ae%e0%80%afetc",
      "/console/%252e%252e%252fetc%252fpasswd", "/console/./index.html", "/console/index.html/..",
      "/console//etc/passwd", "/console/%2Fetc%2Fpasswd", "/..%2F..%2Fetc%2Fpasswd", "/console/INDEX.HTML",
      "/console/index.html%20", "/console/..", "/console/%2e%2e", "/console/..%00/index.html", "/console/%ff",
      "/console/%u002e%u002e/etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/console/file:%2F%2F%2Fetc%2Fpasswd",
      "/console/index.html;.js", "/console/" + "%2e".repeat(3000));

  /** A named way to break a valid body. */
  record Breaker(String name, Function<Body, byte[]> apply) {}

  static final List<String> BAD_UTF8 = List.of("ff", "fe", "c0af", "c1bf", "e080af", "f08080af", "eda080", "edbfbf",
      "f4908080", "f888808080", "80", "bf", "c3", "e282", "f09f98");
  static final List<String> JUNK = List.of("{\"a\":1,}", "{'payload':'x'}", "{payload:\"x\"}", "{\"payload\":\"x\"}}",
      "{\"payload\":\"x\"} x", "{}{}", "{\"payload\" \"x\"}", "{\"payload\":\"x\",,}", "{\"priority\":NaN}",
      "{\"priority\":Infinity}", "{\"priority\":-}", "{\"priority\":01}", "{\"priority\":.5}", "{\"priority\":+1}",
      "{\"priority\":0x10}", "/* c */{}", "// c\n{}", "#\n{}", "{\"payload\":\"a\u0001b\"}", "{\"payload\":\"\\x\"}",
      "{\"payload\":\"\\u12\"}", "{\"payload\":\"x", "[", "\"", "nul", "tru", "[]", "\"x\"", "5", "null", "true", "[{}]",
      "{\"" + "k".repeat(60000) + "\":1}", "{\"priority\":" + "9".repeat(2000) + "}", "{\"payload\":\"x\"}\u0000",
      "\u0000{}", "{\"a\":1e99999999999}", "{\"payload\":\"x\"", "{\"lease\":[}");

  static final List<Breaker> BREAKERS = List.of(
      new Breaker("truncated", b -> {
        byte[] body = b.render();
        return java.util.Arrays.copyOf(body, 1 + random.nextInt(body.length - 1));
      }),
      new Breaker("invalid UTF-8 in a value", b -> insertInString(b.render(), hex(pick(BAD_UTF8)), true)),
      new Breaker("invalid UTF-8 in a name", b -> insertInString(b.render(), hex(pick(BAD_UTF8)), false)),
      new Breaker("an unpaired surrogate escape", b -> insertInString(b.render(),
          pick(List.of("\\ud800", "\\udfff", "\\ud800\\u0041", "\\udbff\\ud800", "\\udc00\\ud800")).getBytes(StandardCharsets.US_ASCII),
          random.nextBoolean())),
      new Breaker("deep nesting over the limit", b -> nested(b, 1001 + random.nextInt(100_000))),
      new Breaker("deep nesting under the limit", b -> nested(b, 2 + random.nextInt(990))),
      new Breaker("junk", b -> pick(JUNK).getBytes(StandardCharsets.UTF_8)),
      new Breaker("random bytes", b -> {
        byte[] bytes = new byte[1 + random.nextInt(300)];
        random.nextBytes(bytes);
        if (" \t\r\n{".indexOf(bytes[0]) >= 0) {
          bytes[0] = '!'; // neither blank (an empty body is {}) nor an object
        }
        return bytes;
      }));

  /** {@code body} with one field's value (or the whole body) replaced by arrays or objects nested {@code depth} deep. */
  static byte[] nested(Body body, int depth) {
    boolean objects = random.nextBoolean();
    String open = objects ? "{\"a\":" : "[";
    String close = objects ? "}" : "]";
    String deep = open.repeat(depth) + "1" + close.repeat(depth);
    if (random.nextInt(4) == 0) {
      return deep.getBytes(StandardCharsets.UTF_8);
    }
    List<String> fields = new ArrayList<>(body.values.keySet());
    return body.with(fields.get(random.nextInt(fields.size())), deep).render();
  }

  /** {@code bytes} inserted right after the opening quote of a string value (or a field name). */
  static byte[] insertInString(byte[] body, byte[] bytes, boolean value) {
    List<Integer> at = new ArrayList<>();
    String s = new String(body, StandardCharsets.ISO_8859_1);
    for (int i = s.indexOf('"'); i >= 0; i = s.indexOf('"', i + 1)) {
      boolean afterColon = i >= 2 && s.startsWith(": ", i - 2);
      boolean afterOpen = i >= 1 && (s.charAt(i - 1) == '{' || s.startsWith(", ", i - 2));
      if (value ? afterColon : afterOpen) {
        at.add(i + 1);
      }
    }
    if (at.isEmpty()) {
      at.add(s.indexOf('"') + 1);
    }
    int i = at.get(random.nextInt(at.size()));
    return concat(java.util.Arrays.copyOf(body, i), bytes, java.util.Arrays.copyOfRange(body, i, body.length));
  }

  // ---- sending and judging ----

  /** Sends a body to {@code target} ("[METHOD ]path[#variant]") and requires a refusal. */
  static void sendBody(String target, byte[] body, String what) {
    String method = "POST";
    String path = target;
    if (path.startsWith("PUT ")) {
      method = "PUT";
      path = path.substring(4);
    }
    int hash = path.indexOf('#');
    if (hash >= 0) {
      path = path.substring(0, hash);
    }
    Answer a = exchange(request(method, path, Map.of("Content-Type", "application/json"), body));
    String context = method + " " + path + " " + what + " (body " + abbreviate(new String(body, StandardCharsets.UTF_8)) + ")";
    try {
      if (path.endsWith("/items") && !path.contains("/topics/") || path.matches("/v1/items/(ack|nack|extend|release)")) {
        assertBatchRefused(context, a);
      } else {
        assertRefused(context, a);
      }
    } catch (AssertionError e) {
      problems.add(e.getMessage());
    }
  }

  /** The refusals {@link #sendBody} missed, all reported at the end of the test that sent them. */
  static final List<String> problems = new CopyOnWriteArrayList<>();

  @AfterEach
  void everyBodyWasRefused() {
    List<String> missed = List.copyOf(problems);
    problems.clear();
    assertTrue(missed.isEmpty(), () -> missed.size() + " requests not refused, e.g.:\n" + missed.stream().limit(40)
        .collect(Collectors.joining("\n")));
  }

  static void sendBody(String target, String body, String what) {
    sendBody(target, body.getBytes(StandardCharsets.UTF_8), what);
  }

  static void assertRefused(String what, Answer a) {
    assertRefused(what, a, false);
  }

  /**
   * A 4xx with a JSON {@code {"error"}}, or a connection closed without an answer; with
   * {@code jdkMayRefuse}, also the JDK's own 400 for a request its parser refused before any handler.
   */
  static void assertRefused(String what, Answer a, boolean jdkMayRefuse) {
    String context = what + " [seed " + SEED + "]: " + a;
    if (!a.answered()) {
      tally("closed", true);
      return;
    }
    boolean jdk = jdkMayRefuse && a.header("content-type").startsWith("text/html")
        && a.header("connection").equals("close");
    // The JDK answers a transfer coding it does not know 501, as RFC 9112 says, before any handler runs.
    if (jdk && (a.status >= 400 && a.status < 500 || a.status == 501 && new String(a.body, StandardCharsets.ISO_8859_1)
        .contains("Unsupported Transfer-Encoding"))) {
      tally("refused by the JDK's parser (" + a.status + ")", true);
      return;
    }
    assertTrue(a.status >= 400 && a.status < 500, () -> "not a 4xx: " + context);
    JsonNode json = a.json();
    assertNotNull(json, () -> "not JSON: " + context);
    assertTrue(json.path("error").isTextual() && !json.get("error").asText().isBlank(), () -> "no error: " + context);
    tally(a.status + " JSON", true);
  }

  static void assertBatchRefused(String what, Answer a) {
    if (a.answered() && a.status == 200) {
      JsonNode json = a.json();
      assertNotNull(json, () -> what + ": " + a);
      for (JsonNode result : json.get("results")) {
        assertTrue(result.get("status").asInt() >= 400 && result.get("status").asInt() < 500 && result.get("error").isTextual(),
            () -> "an entry was not refused: " + what + " [seed " + SEED + "]: " + a);
      }
      tally("200 with every entry refused", true);
      return;
    }
    assertRefused(what, a);
  }

  static void assertStatus(int status, String what, Answer a) {
    assertEquals(status, a.status, () -> what + ": " + a);
    assertRefused(what, a);
  }

  static void assertStatusOrClosed(int status, String what, Answer a) {
    if (a.answered()) {
      assertStatus(status, what, a);
    } else {
      tally("closed", true);
    }
  }

  static void tally(String what, boolean count) {
    if (count) {
      synchronized (tally) {
        tally.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
      }
    }
  }

  /** An answer read from a raw socket: status 0 when the connection closed without a complete one. */
  record Answer(int status, Map<String, String> headers, byte[] body, String note) {
    boolean answered() {
      return status > 0;
    }

    String header(String name) {
      return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
    }

    JsonNode json() {
      try {
        JsonNode n = JSON.readTree(body);
        return n != null && n.isObject() ? n : null;
      } catch (IOException e) {
        return null;
      }
    }

    @Override
    public String toString() {
      return answered() ? status + " " + headers + " " + abbreviate(new String(body, StandardCharsets.UTF_8))
          : "closed without an answer (" + note + ")";
    }
  }

  static Socket connect() throws IOException {
    Socket s = new Socket();
    s.connect(address, 5_000);
    s.setSoTimeout(15_000);
    return s;
  }

  /** One request on a new connection; the answer, or how the connection ended. */
  static Answer exchange(byte[] request) {
    long t0 = System.nanoTime();
    try (Socket s = connect()) {
      Answer answer = exchange(s, request);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      if (ms > 1_000) {
        System.out.println("SLOW " + ms + " ms: " + abbreviate(new String(request, StandardCharsets.ISO_8859_1)) + " -> " + answer);
      }
      return answer;
    } catch (IOException e) {
      return new Answer(0, Map.of(), new byte[0], "connect: " + e);
    }
  }

  static Answer exchange(Socket s, byte[] request) throws IOException {
    String writeFailure = null;
    try {
      OutputStream out = s.getOutputStream();
      out.write(request);
      out.flush();
    } catch (IOException e) {
      writeFailure = "write: " + e;
    }
    Answer a = read(s);
    return a.answered() || writeFailure == null ? a : new Answer(0, Map.of(), new byte[0], writeFailure + "; " + a.note);
  }

  /** Reads one response (skipping 1xx), until its Content-Length or the end; a read timeout is a hang: a failure. */
  static Answer read(Socket s) {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    String ended = "end of stream";
    int timeout = 0;
    try {
      timeout = s.getSoTimeout();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[8192];
      while (true) {
        Answer complete = parse(got.toByteArray());
        if (complete != null) {
          return complete;
        }
        int n = in.read(buf);
        if (n < 0) {
          break;
        }
        got.write(buf, 0, n);
      }
    } catch (SocketTimeoutException e) {
      fail("no answer and the connection still open after " + timeout + " ms: the server hangs [seed " + SEED
          + "], got " + abbreviate(got.toString(StandardCharsets.ISO_8859_1)));
    } catch (IOException e) {
      ended = e.toString();
    }
    return new Answer(0, Map.of(), got.toByteArray(), ended + " after " + got.size() + " bytes");
  }

  /** The response in {@code bytes} if complete, else null. */
  static Answer parse(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      return null;
    }
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
    }
    if (status < 200) {
      return parse(java.util.Arrays.copyOfRange(bytes, end + 4, bytes.length));
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    if (bytes.length < end + 4 + length) {
      return null;
    }
    return new Answer(status, headers, java.util.Arrays.copyOfRange(bytes, end + 4, end + 4 + length), "");
  }

  static void keepAliveGet(Socket s, String path, int status) throws IOException {
    s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    Answer a = read(s);
    assertEquals(status, a.status, a::toString);
  }

  /** How many of {@code channels} the server closed (end of stream or reset). */
  static long closed(List<SocketChannel> channels) {
    long n = 0;
    ByteBuffer buf = ByteBuffer.allocate(64);
    for (SocketChannel c : channels) {
      try {
        buf.clear();
        if (c.read(buf) < 0) {
          n++;
        }
      } catch (IOException e) {
        n++;
      }
    }
    return n;
  }

  static byte[] request(String method, String path, Map<String, String> headers, byte[] body) {
    Map<String, String> all = new LinkedHashMap<>(headers);
    all.put("Content-Length", Integer.toString(body.length));
    return concat(head(method, path, all), body);
  }

  static byte[] post(String path, Map<String, String> headers, byte[] body) {
    return request("POST", path, headers, body);
  }

  /** A request line and headers, with Host and Connection: close. */
  static byte[] head(String method, String path, Map<String, String> headers) {
    StringBuilder b = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    headers.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
    return b.append("Connection: close\r\n\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  static Map<String, String> headers(int count, int valueBytes) {
    Map<String, String> h = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      h.put("X-Fuzz-" + i, "v".repeat(valueBytes));
    }
    return h;
  }

  static byte[] chunked(byte[] body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < body.length; i += 8192) {
      int n = Math.min(8192, body.length - i);
      out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(body, i, n);
      out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  /** A JSON text of exactly {@code n} bytes: a string of spaces, so not an object. */
  static byte[] padded(int n) {
    byte[] b = new byte[n];
    java.util.Arrays.fill(b, (byte) 'x');
    b[0] = '"';
    b[n - 1] = '"';
    return b;
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  static byte[] hex(String hex) {
    byte[] b = new byte[hex.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }

  static <T> T pick(List<T> list) {
    return list.get(random.nextInt(list.size()));
  }

  static String quoted(String s) {
    return "\"" + s + "\"";
  }

  static String abbreviate(String s) {
    String oneLine = s.replace("\r", "\\r").replace("\n", "\\n");
    return oneLine.length() > 200 ? oneLine.substring(0, 200) + "...(" + oneLine.length() + " chars)" : oneLine;
  }
}
