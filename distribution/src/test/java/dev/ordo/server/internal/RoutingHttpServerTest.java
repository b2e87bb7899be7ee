package dev.ordo.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.server.HttpResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RoutingHttpServerTest {
  private final RoutingHttpServer server = RoutingHttpServer.start("127.0.0.1", 0);
  private final HttpClient client = HttpClient.newHttpClient();

  record Echo(String text, int n) {}

  @AfterEach
  void close() {
    server.close();
  }

  private java.net.http.HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(body);
    return client.send(HttpRequest.newBuilder(URI.create(server.address() + path)).method(method, publisher).build(),
        BodyHandlers.ofString());
  }

  @Test
  void routesWithPathAndQueryParameters() throws Exception {
    server.get("/topics/{ns}/{topic}", r -> HttpResponse.ok(new Echo(r.pathParam("ns") + "/" + r.pathParam("topic"),
        Integer.parseInt(r.queryParam("limit").orElse("-1")))));
    var response = send("GET", "/topics/team%20a/jobs?limit=5", null);
    assertEquals(200, response.statusCode());
    assertEquals("application/json", response.headers().firstValue("content-type").orElseThrow());
    assertEquals("{\"text\":\"team a/jobs\",\"n\":5}", response.body());
    assertEquals("{\"text\":\"x/y\",\"n\":-1}", send("GET", "/topics/x/y/", null).body());
    assertEquals(400, send("GET", "/topics/x/y?limit=many", null).statusCode(), "NumberFormatException is an IllegalArgumentException");
  }

  /**
   * A worker that reuses one connection (Python's requests.Session, http.client) must get every answer
   * on it: keep-alive, also after an error status and a POST with a body. Nagle's algorithm is off
   * for the server's sockets (a small body written after its headers would otherwise wait for the
   * client's delayed ACK, 40 ms on Linux).
   */
  @Test
  void oneKeepAliveConnectionCarriesManyRequestsAndAnswers() throws Exception {
    server.post("/echo", r -> HttpResponse.json(201, r.bodyAs(Echo.class)));
    assertEquals("true", System.getProperty("sun.net.httpserver.nodelay"));
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(10_000);
      var out = socket.getOutputStream();
      var in = new java.io.BufferedInputStream(socket.getInputStream());
      for (int i = 0; i < 3; i++) {
        String body = "{\"text\":\"n" + i + "\",\"n\":" + i + "}";
        out.write(("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length() + "\r\n\r\n" + body).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.flush();
        String[] answer = readResponse(in);
        assertEquals("HTTP/1.1 201 Created", answer[0], "request " + i + " on the same connection");
        assertEquals(body, answer[1]);
        out.write("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.flush();
        assertEquals("HTTP/1.1 404 Not Found", readResponse(in)[0], "an error keeps the connection");
      }
    }
  }

  /** Status line and body of one HTTP/1.1 response with a Content-Length (or none). */
  private static String[] readResponse(java.io.InputStream in) throws java.io.IOException {
    String status = readLine(in);
    int length = 0;
    for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    return new String[] {status, new String(in.readNBytes(length), java.nio.charset.StandardCharsets.UTF_8)};
  }

  private static String readLine(java.io.InputStream in) throws java.io.IOException {
    StringBuilder b = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new java.io.EOFException("connection closed after: " + b);
      }
      if (c != '\r') {
        b.append((char) c);
      }
    }
    return b.toString();
  }

  @Test
  void jsonBodiesAndErrors() throws Exception {
    server.post("/echo", r -> {
      Echo e = r.bodyAs(Echo.class);
      if (e.n() < 0) {
        throw new IllegalArgumentException("n must be >= 0");
      }
      return HttpResponse.json(201, e);
    });
    server.get("/boom", r -> {
      throw new IllegalStateException("kaput");
    });
    var created = send("POST", "/echo", "{\"text\":\"hi\",\"n\":2}");
    assertEquals(201, created.statusCode());
    assertEquals("{\"text\":\"hi\",\"n\":2}", created.body());
    var bad = send("POST", "/echo", "{\"text\":\"hi\",\"n\":-1}");
    assertEquals(400, bad.statusCode());
    assertEquals("{\"error\":\"n must be >= 0\"}", bad.body());
    assertEquals(400, send("POST", "/echo", "not json").statusCode());
    var boom = send("GET", "/boom", null);
    assertEquals(500, boom.statusCode());
    assertTrue(boom.body().contains("kaput"), boom.body());
  }

  @Test
  void unknownPathsAndMethods() throws Exception {
    server.get("/health", r -> HttpResponse.ok(Map.of("status", "UP")));
    var notFound = send("GET", "/nope", null);
    assertEquals(404, notFound.statusCode());
    assertEquals("{\"error\":\"no such endpoint: GET /nope\"}", notFound.body());
    var wrongMethod = send("DELETE", "/health", null);
    assertEquals(405, wrongMethod.statusCode());
    assertEquals("GET", wrongMethod.headers().firstValue("allow").orElseThrow());
    assertEquals(200, send("HEAD", "/health", null).statusCode());
  }

  @Test
  void whileStartingAnUnknownPathIsNotReadyYetRatherThanMissing() throws Exception {
    server.starting(true);
    server.get("/health", r -> HttpResponse.ok(Map.of("status", "STARTING")));
    var early = send("GET", "/v1/later", null);
    assertEquals(503, early.statusCode());
    assertEquals("1", early.headers().firstValue("retry-after").orElseThrow());
    assertTrue(early.body().contains("starting"), early.body());
    assertEquals(200, send("GET", "/health", null).statusCode(), "registered routes answer meanwhile");
    server.get("/v1/later", r -> HttpResponse.ok(Map.of("ok", true)));
    server.starting(false);
    assertEquals(200, send("GET", "/v1/later", null).statusCode());
    assertEquals(404, send("GET", "/v1/never", null).statusCode());
  }

  @Test
  void refusesDuplicateRoutes() {
    server.get("/items/{id}", r -> HttpResponse.ok("a"));
    assertThrows(IllegalArgumentException.class, () -> server.get("/items/{other}", r -> HttpResponse.ok("b")));
    server.post("/items/{id}", r -> HttpResponse.ok("c"));
  }

  @Test
  void manyWaitingRequestsDoNotBlockOthers() throws Exception {
    // Long polls hold their thread while they wait: twenty of them must not starve a quick request.
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch waiting = new java.util.concurrent.CountDownLatch(20);
    server.get("/wait", r -> {
      waiting.countDown();
      release.await(30, java.util.concurrent.TimeUnit.SECONDS);
      return HttpResponse.ok(Map.of("waited", true));
    });
    server.get("/quick", r -> HttpResponse.ok(Map.of("quick", true)));
    java.util.List<java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>>> polls =
        new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      polls.add(client.sendAsync(HttpRequest.newBuilder(URI.create(server.address() + "/wait")).build(),
          BodyHandlers.ofString()));
    }
    try {
      assertTrue(waiting.await(30, java.util.concurrent.TimeUnit.SECONDS), "all twenty are being served at once");
      assertEquals(200, send("GET", "/quick", null).statusCode());
    } finally {
      release.countDown();
    }
    for (var poll : polls) {
      assertEquals(200, poll.get(30, java.util.concurrent.TimeUnit.SECONDS).statusCode());
    }
  }
}
