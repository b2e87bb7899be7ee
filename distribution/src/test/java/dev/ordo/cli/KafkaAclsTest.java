package dev.ordo.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemId;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.LeaseConsumer;
import dev.ordo.client.LeaseConsumerConfig;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.QueueProducerConfig;
import dev.ordo.server.Components;
import dev.ordo.server.KafkaAcls;
import dev.ordo.testing.RealKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Least privilege on a broker that denies what no ACL allows (SASL/SCRAM users, StandardAuthorizer,
 * {@code allow.everyone.if.no.acl.found=false}): each role gets exactly the ACLs of {@link KafkaAcls}
 * (docs/security.md) and does its whole job with them; a principal without them is refused by Kafka.
 * One cluster and one {@code ordo server} for the class.
 */
class KafkaAclsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CLUSTER = "acl";
  private static final ClusterTopics TOPICS = new ClusterTopics(CLUSTER);
  private static final String WORKERS = "acl-workers";

  private static RealKafka kafka;
  private static Cli.Running server;
  private static Path serverConfig;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir
  static Path tmp;

  @BeforeAll
  static void start() throws Exception {
    kafka = RealKafka.startSaslScram();
    for (String user : List.of("ordo-server", "producer", "writer", "worker", "stranger")) {
      kafka.createScramUser(user, password(user));
    }
    kafka.createAcls(KafkaAcls.bindings(KafkaAcls.server(TOPICS), "User:ordo-server"));
    kafka.createAcls(KafkaAcls.bindings(KafkaAcls.producer(TOPICS, true), "User:producer"));
    kafka.createAcls(KafkaAcls.bindings(KafkaAcls.producer(TOPICS, false), "User:writer"));
    kafka.createAcls(KafkaAcls.bindings(KafkaAcls.leaseConsumer(TOPICS, WORKERS), "User:worker"));

    // The server's credentials only in --config, as an operator gives them.
    serverConfig = tmp.resolve("ordo.properties");
    StringBuilder props = new StringBuilder();
    kafka.scramClientSettings("ordo-server", password("ordo-server")).forEach((k, v) -> {
      if (!k.equals("bootstrap.servers")) {
        props.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n');
      }
    });
    props.append("ordo.server.http.port=0\nordo.delay.tiers=200ms,1s\n");
    Files.writeString(serverConfig, props, StandardCharsets.UTF_8);
    server = startServer();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (server != null) {
        server.stop();
      }
    } finally {
      if (kafka != null) {
        kafka.close();
      }
    }
  }

  @Test
  void aServerWithOnlyItsAclsRunsTheQueueTheDelayTiersTheDeadLettersAndRestarts() throws Exception {
    // Delayed past the first tier: the item travels the tier topics (forwarders: groups, transactions).
    String id = enqueue("e2e", "{\"payload\": \"through the tiers\", \"delayMs\": 1500}");
    JsonNode item = dequeueOne("e2e");
    assertEquals(id, item.get("id").asText());
    assertEquals("through the tiers", item.get("payload").asText());

    // To the dead letters, and back with a redrive: the job runner's group and transaction.
    HttpResponse<String> nacked = send("POST", "/v1/items/" + id + "/nack",
        "{\"lease\": \"" + item.get("lease").asText() + "\", \"deadLetter\": true}");
    assertEquals(200, nacked.statusCode(), nacked.body());
    String[] deadLetter = new String[1];
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      JsonNode dead = JSON.readTree(send("GET", "/v1/dlq?namespace=e2e", null).body()).get("deadLetters");
      deadLetter[0] = dead.isEmpty() ? null : dead.get(0).get("id").asText();
      return deadLetter[0] != null;
    });
    HttpResponse<String> redrive = send("POST", "/v1/dlq/redrive", "{\"ids\": [\"" + deadLetter[0] + "\"]}");
    assertEquals(202, redrive.statusCode(), redrive.body());
    String job = JSON.readTree(redrive.body()).get("job").asText();
    JsonNode[] done = new JsonNode[1];
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
      done[0] = JSON.readTree(send("GET", "/v1/dlq/redrives/" + job, null).body());
      return Set.of("DONE", "FAILED").contains(done[0].get("status").asText());
    });
    assertEquals("DONE", done[0].get("status").asText(), done[0]::toString);
    assertEquals(1, done[0].get("redriven").asInt(), done[0]::toString);
    JsonNode redriven = dequeueOne("e2e");
    assertEquals("through the tiers", redriven.get("payload").asText());
    ack(redriven);

    // A restart finds its topics and checks their configs (Describe, DescribeConfigs), and Kafka
    // Streams restores from its changelog.
    assertEquals(0, server.stop().exitCode());
    server = startServer();
    String after = enqueue("e2e", "{\"payload\": \"after the restart\"}");
    JsonNode again = dequeueOne("e2e");
    assertEquals(after, again.get("id").asText());
    ack(again);
  }

  @Test
  void aScheduleForATopicOutsideTheClusterNeedsWriteOnItForTheServer() throws Exception {
    kafka.createTopics(1, "outside");
    String schedule = "{\"topic\": \"outside\", \"value\": \"v\", \"delayMs\": 10}";
    HttpResponse<String> unseen = send("POST", "/v1/schedule", schedule);
    assertEquals(400, unseen.statusCode(), unseen.body());
    assertTrue(unseen.body().contains("does not exist"), unseen.body()); // the server's principal cannot see it

    kafka.createAcls(new KafkaAcls.Grant(ResourceType.TOPIC, PatternType.LITERAL, "outside",
        EnumSet.of(AclOperation.WRITE), "a schedule target").bindings("User:ordo-server"));
    // 202 once the record is written to the target (shorter than the shortest tier: written directly).
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> send("POST", "/v1/schedule", schedule).statusCode() == 202);
  }

  @Test
  void aProducerWithOnlyTheProducerAclsEnqueues() throws Exception {
    try (QueueProducer producer = new QueueProducer(producerConfig("producer", true))) {
      ItemId id = producer.enqueue(EnqueueRequest.builder("prod", "t", bytes("from a producer")).build())
          .get(60, TimeUnit.SECONDS);
      awaitItem(id.toString(), 200);
    }
  }

  @Test
  void aProducerWithoutBackpressureNeedsOnlyWriteOnItems() throws Exception {
    try (QueueProducer producer = new QueueProducer(producerConfig("writer", false))) {
      ItemId id = producer.enqueue(EnqueueRequest.builder("prod", "t", bytes("no backpressure")).build())
          .get(60, TimeUnit.SECONDS);
      awaitItem(id.toString(), 200);
    }
    // With backpressure (the default) it reads the counts and the policies, which it may not.
    try (QueueProducer producer = new QueueProducer(producerConfig("writer", true))) {
      TopicAuthorizationException refused = assertThrows(TopicAuthorizationException.class,
          () -> producer.enqueue(EnqueueRequest.builder("prod", "t", bytes("x")).build()).get(60, TimeUnit.SECONDS));
      assertEquals(Set.of(TOPICS.topicStats()), refused.unauthorizedTopics());
    }
  }

  @Test
  void aLeaseConsumerWithOnlyItsAclsLeasesAndAcks() throws Exception {
    String id = enqueue("lc", "{\"payload\": \"for a worker\"}");
    Set<String> handled = ConcurrentHashMap.newKeySet();
    try (LeaseConsumer consumer = new LeaseConsumer(consumerConfig("worker", WORKERS))) {
      consumer.start(item -> handled.add(item.id() + " " + new String(item.payload(), StandardCharsets.UTF_8)));
      await().atMost(Duration.ofSeconds(60)).until(() -> handled.contains(id + " for a worker"));
      await().atMost(Duration.ofSeconds(30)).until(() -> consumer.stats().acked() == 1);
      awaitItem(id, 404); // acked: gone from the queue
    }
  }

  @Test
  void theProducersPrincipalCannotConsumeNorSendCommands() throws Exception {
    TopicAuthorizationException consume = assertThrows(TopicAuthorizationException.class,
        () -> new LeaseConsumer(consumerConfig("producer", WORKERS)).close());
    assertEquals(Set.of(TOPICS.deliveries()), consume.unauthorizedTopics());

    // An ack, nack or cancel is a record on <cluster>.commands.
    Map<String, Object> p = kafkaSettings("producer");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> raw.send(new ProducerRecord<>(TOPICS.commands(), bytes("cancel"))).get(30, TimeUnit.SECONDS));
      TopicAuthorizationException command = assertInstanceOf(TopicAuthorizationException.class, e.getCause());
      assertEquals(Set.of(TOPICS.commands()), command.unauthorizedTopics());
    }
  }

  @Test
  void aLeaseConsumersPrincipalCannotEnqueueNorJoinAnotherGroup() throws Exception {
    try (QueueProducer producer = new QueueProducer(producerConfig("worker", false))) {
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> producer.enqueue(EnqueueRequest.builder("lc", "t", bytes("x")).build()).get(60, TimeUnit.SECONDS));
      TopicAuthorizationException enqueue = assertInstanceOf(TopicAuthorizationException.class, e.getCause());
      assertEquals(Set.of(TOPICS.items()), enqueue.unauthorizedTopics());
    }
    Map<String, Object> c = kafkaSettings("worker");
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "not-" + WORKERS);
    try (KafkaConsumer<byte[], byte[]> other = new KafkaConsumer<>(c, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      other.subscribe(List.of(TOPICS.deliveries()));
      GroupAuthorizationException refused = assertThrows(GroupAuthorizationException.class, () -> {
        for (int i = 0; i < 300; i++) {
          other.poll(Duration.ofMillis(100));
        }
      });
      assertEquals("not-" + WORKERS, refused.groupId());
    }
  }

  @Test
  void aPrincipalWithoutAclsCannotEnqueue() throws Exception {
    try (QueueProducer producer = new QueueProducer(producerConfig("stranger", false))) {
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> producer.enqueue(EnqueueRequest.builder("prod", "t", bytes("x")).build()).get(60, TimeUnit.SECONDS));
      // Refused on the topic, or already on the idempotent producer's id (no Write on any topic).
      assertInstanceOf(AuthorizationException.class, e.getCause(), () -> String.valueOf(e.getCause()));
    }
  }

  @Test
  void securityMdShowsWhatOrdoAclsPrints() throws Exception {
    String doc = Files.readString(securityMd(), StandardCharsets.UTF_8);
    List<List<String>> examples = List.of(
        List.of("--role", "server", "--principal", "User:ordo"),
        List.of("--role", "producer", "--principal", "User:shop-producer"),
        List.of("--role", "lease-consumer", "--principal", "User:shop-worker", "--group", "shop-workers"));
    for (List<String> args : examples) {
      List<String> command = new java.util.ArrayList<>(List.of("acls", "--command-config", "admin.properties"));
      command.addAll(args);
      Cli.Result printed = Cli.run(command.toArray(String[]::new));
      assertEquals(0, printed.exitCode(), printed::err);
      assertTrue(doc.contains(printed.out()), "docs/security.md should show the output of 'ordo "
          + String.join(" ", command) + "':\n" + printed.out());
    }
    // Its table, one row per grant.
    Map<String, List<KafkaAcls.Grant>> roles = Map.of(
        "server", KafkaAcls.server(new ClusterTopics("ordo")),
        "producer", KafkaAcls.producer(new ClusterTopics("ordo"), true),
        "lease consumer", KafkaAcls.leaseConsumer(new ClusterTopics("ordo"), "<group.id>"));
    roles.forEach((role, grants) -> grants.forEach(g -> {
      String row = "| " + role + " | " + g.type().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + " | "
          + g.pattern().name() + " | `" + g.name() + "` | "
          + String.join(", ", g.operationNames()) + " | ";
      assertTrue(doc.contains(row), "docs/security.md's table should have the row\n" + row);
    }));
    Cli.Result bad = Cli.run("acls", "--role", "lease-consumer", "--principal", "User:w");
    assertEquals(2, bad.exitCode(), bad::out);
    assertTrue(bad.err().contains("needs --group"), bad::err);
  }

  // ---- helpers ----

  private static Cli.Running startServer() throws Exception {
    Cli.Running running = Cli.start(Components::standard, "server", "--bootstrap-servers", kafka.scramBootstrapServers(),
        "--config", serverConfig.toString(), "--cluster", CLUSTER, "--partitions", "2",
        "--state-dir", tmp.resolve("state").toString());
    server = running;
    // 200 only once every component is UP (the queue's stream threads RUNNING).
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
        .until(() -> send("GET", "/health", null).statusCode() == 200);
    return running;
  }

  private static String password(String user) {
    return user + "-secret";
  }

  /** The Kafka settings of {@code user}: the SCRAM listener and its credentials. */
  private static Map<String, Object> kafkaSettings(String user) {
    return new HashMap<>(kafka.scramClientSettings(user, password(user)));
  }

  private static Map<String, Object> producerConfig(String user, boolean backpressure) {
    Map<String, Object> c = kafkaSettings(user);
    c.put(QueueProducerConfig.CLUSTER_CONFIG, CLUSTER);
    c.put(QueueProducerConfig.BACKPRESSURE_CONFIG, backpressure);
    c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    return c;
  }

  private static Map<String, Object> consumerConfig(String user, String group) {
    Map<String, Object> c = kafkaSettings(user);
    c.put(QueueProducerConfig.CLUSTER_CONFIG, CLUSTER);
    c.put(LeaseConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(LeaseConsumerConfig.NAMESPACE_CONFIG, "lc");
    return c;
  }

  private static String enqueue(String namespace, String body) throws Exception {
    HttpResponse<String> r = send("POST", "/v1/namespaces/" + namespace + "/topics/t/items", body);
    assertEquals(201, r.statusCode(), r.body());
    return JSON.readTree(r.body()).get("id").asText();
  }

  private static JsonNode dequeueOne(String namespace) {
    JsonNode[] item = new JsonNode[1];
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      HttpResponse<String> r = send("POST", "/v1/namespaces/" + namespace + "/dequeue",
          "{\"topics\": {\"t\": 1}, \"waitMs\": 2000}");
      assertEquals(200, r.statusCode(), r.body());
      JsonNode items = JSON.readTree(r.body()).get("items");
      item[0] = items.isEmpty() ? null : items.get(0);
      return item[0] != null;
    });
    return item[0];
  }

  private static void ack(JsonNode item) throws Exception {
    HttpResponse<String> r = send("POST", "/v1/items/" + item.get("id").asText() + "/ack",
        "{\"lease\": \"" + item.get("lease").asText() + "\"}");
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("APPLIED", JSON.readTree(r.body()).get("result").asText(), r.body());
  }

  /** Waits until {@code GET /v1/items/{id}} answers {@code status} (200: the queue holds it; 404: gone). */
  private static void awaitItem(String id, int status) {
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> send("GET", "/v1/items/" + id, null).statusCode() == status);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Path securityMd() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/security.md"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new AssertionError("docs/security.md not found above " + Path.of("").toAbsolutePath());
    }
    return dir.resolve("docs/security.md");
  }

  private static HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(body);
    return HTTP.send(HttpRequest.newBuilder(URI.create(server.server().httpAddress() + path)).method(method, publisher)
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
