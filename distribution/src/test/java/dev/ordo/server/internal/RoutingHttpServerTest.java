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
