package dev.ordo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@link ServerComponent} seam: order, context, HTTP routes, failures, /health. */
@KafkaCluster
class ComponentsTest {
  @TempDir
  Path tmp;

  private final RealKafka kafka;
  private final List<String> events = new CopyOnWriteArrayList<>();

  ComponentsTest(RealKafka kafka) {
    this.kafka = kafka;
  }

  record Reply(String component, String id) {}

  private final class Recording implements ServerComponent {
    final String name;
    volatile String status = "UP";
    ServerContext ctx;

    Recording(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public void start(ServerContext ctx) throws Exception {
      this.ctx = ctx;
      try (Admin admin = Admin.create(ctx.kafkaClientConfig())) {
        Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        assertTrue(topics.contains(ctx.topics().items()), "topics exist before components start");
      }
      ctx.http().route("GET", "/" + name + "/{id}", new dev.ordo.server.auth.Access.Somewhere(
          dev.ordo.server.auth.Permission.OPERATE), r -> HttpResponse.ok(new Reply(name, r.pathParam("id"))));
      ctx.http().get("/" + name + "-without-rule", r -> HttpResponse.ok(new Reply(name, "served")));
      events.add("start " + name);
    }

    @Override
    public void close() {
      events.add("close " + name);
    }

    @Override
    public String status() {
      return status;
    }
  }

  private ServerConfig config(String cluster) {
    return ServerConfig.builder().bootstrapServers(kafka.bootstrapServers()).cluster(cluster)
        .stateDir(tmp.resolve(cluster)).httpPort(0).build();
  }

  @Test
  void startsInOrderAndClosesInReverse() throws Exception {
    Recording a = new Recording("a");
    Recording b = new Recording("b");
    try (OrdoServer server = new OrdoServer(config("seam"), List.of(a, b))) {
      server.start();
      assertEquals(List.of("start a", "start b"), events);

      ServerContext ctx = a.ctx;
      assertEquals(kafka.bootstrapServers(), ctx.bootstrapServers());
      assertEquals("seam.items", ctx.topics().items());
      assertEquals(4, ctx.partitions());
      assertEquals(4, ctx.delayTiers().size());
      assertEquals(server.stateDir(), ctx.stateDir());
      assertEquals(14, ctx.layout().specs().size(),
          "items, commands, deliveries, dlq, topics, namespaces, dlq.state, principals, sqs.queues, audit and 4 tiers");

      var response = get(server.httpAddress() + "/b/3-42");
      assertEquals(200, response.statusCode());
      assertEquals("{\"component\":\"b\",\"id\":\"3-42\"}", response.body());
      assertEquals(403, get(server.httpAddress() + "/b-without-rule").statusCode(),
          "a route with no access rule is refused to everyone, even with ordo.http.auth=none");
      assertEquals(200, get(server.httpAddress() + "/health").statusCode());

      b.status = "DOWN";
      var health = get(server.httpAddress() + "/health");
      assertEquals(503, health.statusCode());
      assertTrue(health.body().contains("\"b\":\"DOWN\""), health.body());
    }
    assertEquals(List.of("start a", "start b", "close b", "close a"), events);
  }

  @Test
  void aFailingComponentStopsTheStartAndClosesWhatStarted() {
    Recording a = new Recording("a");
    ServerComponent broken = new ServerComponent() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public void start(ServerContext ctx) {
        events.add("start broken");
        throw new IllegalStateException("no luck\nat all");
      }

      @Override
      public void close() {
        events.add("close broken");
      }
    };
    Recording c = new Recording("c");
    OrdoServer server = new OrdoServer(config("failing"), List.of(a, broken, c));
    StartupException e = assertThrows(StartupException.class, server::start);
    assertEquals("broken failed to start: no luck at all", e.getMessage());
    assertEquals(List.of("start a", "start broken", "close broken", "close a"), events);
    assertTrue(server.isClosed());
    // The state directory is free again.
    try (OrdoServer again = new OrdoServer(config("failing"), List.of())) {
      again.start();
      assertNotNull(again.httpAddress());
    }
  }

  private static java.net.http.HttpResponse<String> get(String uri) throws Exception {
    return HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(URI.create(uri)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
  }
}
