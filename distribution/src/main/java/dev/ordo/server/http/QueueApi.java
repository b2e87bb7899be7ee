package dev.ordo.server.http;

import dev.ordo.api.ItemId;
import dev.ordo.client.BacklogFullException;
import dev.ordo.client.ClientClosedException;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.Enqueued;
import dev.ordo.client.HeadersTooLargeException;
import dev.ordo.client.NackOptions;
import dev.ordo.client.PayloadTooLargeException;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueItem;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.TopicActivity;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.auth.Caller;
import dev.ordo.server.auth.Permission;
import dev.ordo.server.http.internal.HttpConsumerMeters;
import dev.ordo.server.http.internal.JsonBody;
import dev.ordo.server.http.internal.Views;
import dev.ordo.server.internal.Messages;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue's HTTP endpoints (see docs/http-api.md), over one {@link QueueProducer} and one
 * {@link QueueClient}, which talk only to Kafka: any instance answers any of these requests.
 * Item look-ups ({@code GET /v1/items/{id}}) read the owning instance's store: {@link ItemLookup}.
 *
 * <p>Every request is checked in full before anything is sent to Kafka, so a 400 or 413 leaves
 * nothing behind. Answers:
 * <ul>
 *   <li>201/200 when done; 400 {@code {"error"}} naming the bad field; 413 for a payload over the limit;</li>
 *   <li>for ack, nack and extend, the queue's outcome: 200 APPLIED, 409 STALE_LEASE, 404 UNKNOWN_ITEM,
 *       400 INVALID;</li>
 *   <li>429 with {@code Retry-After} when the namespace's backlog is at its policy's {@code maxBacklog}
 *       (or the server's producer backlog limit);</li>
 *   <li>503 when Kafka cannot be reached, 504 when the queue did not answer in time (the command
 *       may still apply).</li>
 * </ul>
 */
public final class QueueApi {
  private static final Logger LOG = LoggerFactory.getLogger(QueueApi.class);

  /** Longest long poll, as SQS's 20 s: a dequeue holds an HTTP thread while it waits. */
  public static final long MAX_WAIT_MS = 20_000;
  /** How long an enqueue waits for Kafka's acknowledgement before answering 504. */
  static final Duration ENQUEUE_TIMEOUT = Duration.ofSeconds(30);
  /** Time given beyond a dequeue's wait or the client's request timeout before answering 504. */
  static final Duration SLACK = Duration.ofSeconds(15);

  static final Set<String> ENQUEUE_FIELDS = fields("payload", "payloadBase64", "priority", "delayMs", "leaseMs",
      "ttlMs", "maxAttempts", "atMostOnce", "groupKey", "metadata", "metadataBase64",
      "headers", "headersBase64", "dedupId");
  static final Set<String> DEQUEUE_FIELDS = fields("topics", "waitMs");
  static final Set<String> ACK_FIELDS = fields("lease");
  static final Set<String> NACK_FIELDS = fields("lease", "delayMs", "metadata", "metadataBase64", "error", "deadLetter");
  static final Set<String> EXTEND_FIELDS = fields("lease", "leaseMs");

  private final QueueProducer producer;
  private final QueueClient client;
  private final ItemLookup lookup;
  private final java.util.function.Function<String, dev.ordo.client.NamespacePause> pauses;
  /** What the HTTP workers do, for their spare capacity's meters (decisions D58); null: not measured. */
  private final HttpConsumerMeters consumers;

  public QueueApi(QueueProducer producer, QueueClient client, ItemLookup lookup) {
    this(producer, client, lookup, ns -> new dev.ordo.client.NamespacePause(ns, null, Map.of()), null);
  }

  /** @param pauses what of a namespace is paused, for the listings' {@code paused} fields */
  public QueueApi(QueueProducer producer, QueueClient client, ItemLookup lookup,
      java.util.function.Function<String, dev.ordo.client.NamespacePause> pauses) {
    this(producer, client, lookup, pauses, null);
  }

  /** @param consumers what the workers dequeuing over HTTP do, for their spare capacity's meters; null: none */
  public QueueApi(QueueProducer producer, QueueClient client, ItemLookup lookup,
      java.util.function.Function<String, dev.ordo.client.NamespacePause> pauses, HttpConsumerMeters consumers) {
    this.producer = producer;
    this.client = client;
    this.lookup = lookup;
    this.pauses = pauses;
    this.consumers = consumers;
  }

  /** Registers every endpoint on {@code router}. */
  public void register(HttpRouter router) {
    router.post("/v1/namespaces/{ns}/topics/{topic}/items", guarded(this::enqueue));
    router.post("/v1/namespaces/{ns}/dequeue", guarded(this::dequeue));
    router.get("/v1/namespaces/{ns}/topics", guarded(this::topics));
    router.get("/v1/namespaces", guarded(this::namespaces));
    router.post("/v1/items/{id}/ack", guarded(single(ACK_FIELDS, observed(ACK, consumers))));
    router.post("/v1/items/{id}/nack", guarded(single(NACK_FIELDS, observed(NACK, consumers))));
    router.post("/v1/items/{id}/extend", guarded(single(EXTEND_FIELDS, observed(EXTEND, consumers))));
    router.post("/v1/items/{id}/release", guarded(single(ACK_FIELDS, observed(RELEASE, consumers))));
    router.post("/v1/items/{id}/cancel", guarded(single(Set.of(), observed(CANCEL, consumers))));
    router.delete("/v1/items/{id}", guarded(single(Set.of(), observed(CANCEL, consumers))));
    router.get("/v1/items/{id}", guarded(lookup::lookup));
    new BatchApi(producer, client, consumers).register(router);
  }

  // ---- endpoints ----

  HttpResponse enqueue(HttpRequest r) throws ApiException {
    JsonBody b = JsonBody.parse(r.body(), ENQUEUE_FIELDS);
    EnqueueRequest request = enqueueRequest(b, r.pathParam("ns"), r.pathParam("topic"),
        r.header("x-request-id").orElse(null));
    if (request.dedupId() != null) {
      return enqueueOnce(request);
    }
    CompletableFuture<ItemId> sent;
    try {
      sent = producer.enqueue(request, Duration.ZERO); // a full backlog answers 429 at once
    } catch (PayloadTooLargeException e) {
      throw new ApiException(413, e.getMessage());
    } catch (HeadersTooLargeException e) {
      throw new ApiException(400, e.getMessage());
    }
    ItemId id = await(sent, ENQUEUE_TIMEOUT, "the enqueue");
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", id.toString());
    return HttpResponse.json(201, body).withHeader("Location", "/v1/items/" + id);
  }

  /**
   * An enqueue with a deduplication ID (decisions D57): waits for the queue's answer, which names the
   * item that holds. Taken in: 201 with its ID, as any enqueue; a duplicate within the window: 200
   * with the first item's ID and {@code "duplicate": true}, nothing enqueued.
   */
  private HttpResponse enqueueOnce(EnqueueRequest request) throws ApiException {
    CompletableFuture<Enqueued> answer;
    try {
      answer = client.enqueue(producer, request, Duration.ZERO);
    } catch (PayloadTooLargeException e) {
      throw new ApiException(413, e.getMessage());
    } catch (HeadersTooLargeException e) {
      throw new ApiException(400, e.getMessage());
    }
    return enqueued(await(answer, SLACK, "the enqueue"));
  }

  /** The answer to an enqueue with a deduplication ID: 201 taken in, 200 a duplicate of the item named. */
  static HttpResponse enqueued(Enqueued e) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", e.id().toString());
    body.put("duplicate", e.duplicate());
    return HttpResponse.json(e.duplicate() ? 200 : 201, body).withHeader("Location", "/v1/items/" + e.id());
  }

  /** The item an enqueue's fields describe (every field checked; IllegalArgumentException names a bad one). */
  static EnqueueRequest enqueueRequest(JsonBody b, String namespace, String topic, String traceId) {
    byte[] payload = bytes(b, "payload", true);
    EnqueueRequest.Builder builder = EnqueueRequest.builder(namespace, topic, payload);
    Integer priority = b.integer("priority", Integer.MIN_VALUE);
    if (priority != null) {
      builder.priority(priority);
    }
    Long delay = b.millis("delayMs", 0);
    if (delay != null) {
      builder.delay(Duration.ofMillis(delay));
    }
    Long lease = b.millis("leaseMs", 1);
    if (lease != null) {
      builder.lease(Duration.ofMillis(lease));
    }
    Long ttl = b.millis("ttlMs", 1);
    if (ttl != null) {
      builder.ttl(Duration.ofMillis(ttl));
    }
    Integer maxAttempts = b.integer("maxAttempts", 1);
    if (maxAttempts != null) {
      builder.maxAttempts(maxAttempts);
    }
    if (Boolean.TRUE.equals(b.bool("atMostOnce"))) {
      builder.atMostOnce();
    }
    builder.groupKey(b.string("groupKey"));
    builder.dedupId(b.string("dedupId"));
    builder.metadata(bytes(b, "metadata", false));
    headers(b, builder);
    if (traceId != null) {
      builder.traceId(traceId);
    }
    return builder.build();
  }

  HttpResponse dequeue(HttpRequest r) throws ApiException {
    String namespace = r.pathParam("ns");
    JsonBody b = JsonBody.parse(r.body(), DEQUEUE_FIELDS);
    Map<String, Integer> topics = b.counts("topics", 1);
    if (topics == null || topics.isEmpty()) {
      throw new IllegalArgumentException("topics is missing: give counts per topic, e.g. {\"topics\": {\"jobs\": 10}},"
          + " or {\"topics\": {\"*\": 10}} for any topic of the namespace");
    }
    Long waitMs = b.millis("waitMs", 0);
    long wait = waitMs == null ? 0 : waitMs;
    if (wait > MAX_WAIT_MS) {
      throw new IllegalArgumentException("waitMs must be at most " + MAX_WAIT_MS + ", got " + wait);
    }
    if (consumers == null) {
      List<QueueItem> items = await(client.dequeue(namespace, topics, Duration.ofMillis(wait)),
          Duration.ofMillis(wait).plus(SLACK), "the dequeue");
      return HttpResponse.ok(Map.of("items", items.stream().map(Views::delivered).toList()));
    }
    // The group the caller names (a label of the server's metrics, so a bounded name), else its principal
    // (principals are few and made by admins).
    String group = r.header(HttpConsumerMeters.GROUP_HEADER).orElse(null);
    if (group == null) {
      group = r.caller().principal();
    } else if (!HttpConsumerMeters.isGroupName(group)) {
      throw new IllegalArgumentException(HttpConsumerMeters.GROUP_HEADER + " must be 1 to 64 letters, digits, '.', '_'"
          + " or '-' (it is a label of the server's metrics), got '" + group + "'");
    }
    consumers.dequeueStarted(namespace, topics.keySet(), group);
    List<QueueItem> items = List.of();
    try {
      items = await(client.dequeue(namespace, topics, Duration.ofMillis(wait)),
          Duration.ofMillis(wait).plus(SLACK), "the dequeue");
    } finally {
      consumers.dequeueEnded(namespace, topics.keySet(), group, items);
    }
    return HttpResponse.ok(Map.of("items", items.stream().map(Views::delivered).toList()));
  }

  HttpResponse topics(HttpRequest r) throws ApiException {
    String namespace = r.pathParam("ns");
    List<TopicActivity> topics = await(client.activeTopics(namespace), SLACK, "reading the topics table");
    dev.ordo.client.NamespacePause pause = pauses.apply(namespace);
    return HttpResponse.ok(Map.of("topics", topics.stream()
        .sorted(Comparator.comparing(TopicActivity::topic))
        .map(t -> Views.topic(t, pause.paused(t.topic())))
        .toList()));
  }

  /**
   * Every namespace that has items, with its totals over its topics, from the same table as
   * {@link #topics}; with {@code ?topics=true} each namespace's topics too (what the console's
   * overview shows in one request).
   */
  HttpResponse namespaces(HttpRequest r) throws ApiException {
    String withTopics = r.queryParam("topics").orElse("false");
    if (!withTopics.equals("true") && !withTopics.equals("false")) {
      throw new IllegalArgumentException("topics must be true or false, got '" + withTopics + "'");
    }
    List<TopicActivity> topics = await(client.activeTopics(), SLACK, "reading the topics table").stream()
        .filter(a -> r.caller().may(Permission.OPERATE, a.namespace()))
        .toList();
    return HttpResponse.ok(Map.of("namespaces", Views.namespaces(topics, withTopics.equals("true"), pauses)));
  }

  /**
   * A command on one item, from its fields (a single request's body or a batch entry): every field
   * checked when called (an IllegalArgumentException names a bad one), the command sent when the
   * returned supplier is called.
   */
  @FunctionalInterface
  interface ItemCommand {
    Supplier<CompletableFuture<CommandOutcome>> check(QueueClient.Scoped client, ItemId id, JsonBody fields);
  }

  static final ItemCommand ACK = (client, id, b) -> {
    String lease = lease(b);
    return () -> client.ack(id, lease);
  };

  static final ItemCommand NACK = (client, id, b) -> {
    String lease = lease(b);
    Long delay = b.millis("delayMs", 0);
    byte[] metadata = bytes(b, "metadata", false);
    Boolean deadLetter = b.bool("deadLetter");
    NackOptions options = new NackOptions(Duration.ofMillis(delay == null ? 0 : delay), metadata, b.string("error"),
        deadLetter != null && deadLetter);
    return () -> client.nack(id, lease, options);
  };

  static final ItemCommand EXTEND = (client, id, b) -> {
    String lease = lease(b);
    Long leaseMs = b.millis("leaseMs", 1);
    if (leaseMs == null) {
      throw new IllegalArgumentException("leaseMs is missing: how long the lease should last from now");
    }
    return () -> client.extend(id, lease, Duration.ofMillis(leaseMs));
  };

  static final ItemCommand RELEASE = (client, id, b) -> {
    String lease = lease(b);
    return () -> client.release(id, lease);
  };

  static final ItemCommand CANCEL = (client, id, b) -> () -> client.cancel(id);

  /**
   * {@code command}, telling {@code consumers} (when not null) what the queue answered: an extend it
   * applied moves the item's lease end; any other command it answered (applied, stale lease, unknown
   * item) means the caller no longer holds the item on that lease (decisions D58). A command refused
   * for its namespace, or not answered, changes nothing.
   */
  static ItemCommand observed(ItemCommand command, HttpConsumerMeters consumers) {
    if (consumers == null) {
      return command;
    }
    return (client, id, b) -> {
      Supplier<CompletableFuture<CommandOutcome>> send = command.check(client, id, b);
      String lease = b.string("lease");
      boolean extend = command == EXTEND;
      return () -> {
        CompletableFuture<CommandOutcome> sent = send.get();
        sent.thenAccept(o -> observe(consumers, id.toString(), lease, extend, o));
        return sent;
      };
    };
  }

  /** Tells {@code consumers} what an answered command means for the item's holder (see {@link #observed}). */
  static void observe(HttpConsumerMeters consumers, String itemId, String lease, boolean extend, CommandOutcome o) {
    if (o == null || o.forbiddenNamespace() != null || o.result() == CommandOutcome.Result.INVALID) {
      return;
    }
    if (!extend) {
      consumers.settled(itemId, lease);
    } else if (o.result() != CommandOutcome.Result.APPLIED) {
      consumers.settled(itemId, lease);
    } else if (o.leaseExpiresAt() != null) {
      consumers.extended(itemId, lease, o.leaseExpiresAt().toEpochMilli());
    }
  }

  /** {@code POST /v1/items/{id}/<command>}: the item's ID from the path, the command's fields from the body. */
  private ApiHandler single(Set<String> fields, ItemCommand command) {
    return r -> {
      ItemId id = ItemId.parse(r.pathParam("id"));
      JsonBody b = JsonBody.parse(r.body(), fields);
      return outcome(id, command.check(client.within(r.caller().scope(Permission.CONSUME)), id, b).get(), r.caller());
    };
  }

  // ---- helpers ----

  static String lease(JsonBody b) {
    String lease = b.string("lease");
    if (lease == null || lease.isEmpty()) {
      throw new IllegalArgumentException("lease is missing: the lease id the item was dequeued with");
    }
    return lease;
  }

  /** {@code name} as UTF-8 text or {@code nameBase64}, not both; null when neither (an error if required). */
  /**
   * The item's headers: {@code headers} as {name: UTF-8 text}, then {@code headersBase64} as
   * {name: base64} for binary values; a JSON null is a header with a null value.
   */
  static void headers(JsonBody b, EnqueueRequest.Builder builder) {
    Map<String, byte[]> text = b.stringObject("headers", s -> s.getBytes(StandardCharsets.UTF_8));
    Map<String, byte[]> binary = b.stringObject("headersBase64", s -> {
      try {
        return java.util.Base64.getDecoder().decode(s);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("is not valid base64: " + e.getMessage());
      }
    });
    for (Map<String, byte[]> m : java.util.Arrays.asList(text, binary)) {
      if (m != null) {
        for (Map.Entry<String, byte[]> e : m.entrySet()) {
          if (e.getKey().isEmpty()) {
            throw new IllegalArgumentException("headers: a header name must not be empty");
          }
          builder.header(e.getKey(), e.getValue());
        }
      }
    }
  }

  static byte[] bytes(JsonBody b, String name, boolean required) {
    String base64 = name + "Base64";
    if (b.has(name) && b.has(base64)) {
      throw new IllegalArgumentException("set " + name + " or " + base64 + ", not both");
    }
    if (b.has(base64)) {
      return b.base64(base64);
    }
    String text = b.string(name);
    if (text == null) {
      if (required) {
        throw new IllegalArgumentException(name + " is missing: set " + name + " (text) or " + base64);
      }
      return null;
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private HttpResponse outcome(ItemId id, CompletableFuture<CommandOutcome> future, Caller caller) throws ApiException {
    CommandOutcome o = await(future, SLACK, "the " + "command on item " + id);
    if (o.forbiddenNamespace() != null) {
      return HttpResponse.error(403, caller.missing(Permission.CONSUME, "namespace '" + o.forbiddenNamespace()
          + "' (item " + id + ")"));
    }
    String detail = o.detail() == null ? "" : ": " + o.detail();
    return switch (o.result()) {
      case APPLIED -> HttpResponse.ok(Views.applied(o));
      case STALE_LEASE -> HttpResponse.error(409, "stale lease for item " + id + detail);
      case UNKNOWN_ITEM -> HttpResponse.error(404, "unknown item " + id + detail);
      case INVALID -> HttpResponse.error(400, "refused by the queue" + detail);
    };
  }

  /**
   * Waits for a client future: Kafka failures are 503, no answer in time 504, a full backlog 429,
   * a closed client (the server is stopping) 503.
   */
  static <T> T await(CompletableFuture<T> future, Duration timeout, String what) throws ApiException {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(false);
      throw new ApiException(503, "interrupted while waiting for " + what + " (the server is stopping)");
    } catch (TimeoutException e) {
      throw new ApiException(504, "no answer to " + what + " within " + timeout.toMillis() + " ms; it may still apply");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof TimeoutException) {
        throw new ApiException(504, Messages.oneLine(cause));
      }
      if (cause instanceof BacklogFullException) {
        throw new ApiException(429, cause.getMessage());
      }
      if (cause instanceof IllegalArgumentException) {
        throw (IllegalArgumentException) cause;
      }
      if (cause instanceof KafkaException) {
        throw new ApiException(503, "Kafka failed " + what + ": " + Messages.oneLine(cause));
      }
      if (cause instanceof ClientClosedException) {
        throw new ApiException(503, Messages.oneLine(cause) + " (the server is stopping)");
      }
      LOG.warn("{} failed", what, cause);
      throw new ApiException(500, what + " failed: " + Messages.oneLine(cause));
    }
  }

  /** An answer other than 200 that a handler decided on. */
  public static final class ApiException extends Exception {
    final int status;

    public ApiException(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  @FunctionalInterface
  interface ApiHandler {
    HttpResponse handle(HttpRequest request) throws ApiException;
  }

  /** Turns {@link ApiException}s into {@code {"error"}} answers; IllegalArgumentException stays the router's 400. */
  /** How long a request naming a topic the topics table does not show yet waits for it before a 404. */
  static final Duration TOPIC_SHOW_WAIT = Duration.ofSeconds(2);

  /**
   * The namespace's topics from the topics table, waiting up to {@link #TOPIC_SHOW_WAIT} for
   * {@code topic} (or, when null, any topic of the namespace) to show: the table lags the queue by its
   * stats interval (1 s) and a commit, so a topic whose first items were enqueued a moment ago is not a
   * misspelt one (a pause or purge right after an enqueue got a 404 under load).
   */
  static List<TopicActivity> topicsShowing(QueueClient client, String namespace, String topic) throws ApiException {
    long deadline = System.nanoTime() + TOPIC_SHOW_WAIT.toNanos();
    while (true) {
      List<TopicActivity> topics = await(client.activeTopics(namespace), SLACK, "reading the topics table");
      boolean shows = topic == null ? !topics.isEmpty() : topics.stream().anyMatch(t -> t.topic().equals(topic));
      if (shows || System.nanoTime() >= deadline) {
        return topics;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return topics;
      }
    }
  }

  static HttpRouter.Handler guarded(ApiHandler handler) {
    return request -> {
      try {
        return handler.handle(request);
      } catch (ApiException e) {
        if (e.status >= 500 && e.status != 503) {
          // A timeout or a failure of ours (503, Kafka away, is logged where it is noticed): say it here too.
          LOG.warn("HTTP {} {}: {} {}", request.method(), request.path(), e.status, e.getMessage());
        }
        HttpResponse response = HttpResponse.error(e.status, e.getMessage());
        // 503: Kafka is away; 429: the namespace's backlog is full, and its counts refresh every second.
        return e.status == 503 || e.status == 429 ? response.withHeader("Retry-After", "1") : response;
      }
    };
  }

  private static Set<String> fields(String... names) {
    return new LinkedHashSet<>(List.of(names));
  }
}
