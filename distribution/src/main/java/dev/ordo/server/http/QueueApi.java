package dev.ordo.server.http;

import static dev.ordo.server.http.ApiAnswers.SLACK;
import static dev.ordo.server.http.ApiAnswers.await;
import static dev.ordo.server.http.ApiAnswers.guarded;
import static dev.ordo.server.http.ItemCommands.ACK;
import static dev.ordo.server.http.ItemCommands.CANCEL;
import static dev.ordo.server.http.ItemCommands.EXTEND;
import static dev.ordo.server.http.ItemCommands.NACK;
import static dev.ordo.server.http.ItemCommands.RELEASE;
import static dev.ordo.server.http.ItemCommands.observed;

import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.Enqueued;
import dev.ordo.client.HeadersTooLargeException;
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
import dev.ordo.server.http.ApiAnswers.ApiHandler;
import dev.ordo.server.http.ItemCommands.ItemCommand;
import dev.ordo.server.http.internal.HttpConsumerMeters;
import dev.ordo.server.http.internal.JsonBody;
import dev.ordo.server.http.internal.Views;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

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
 *
 * <p>Inside: {@link ItemFields} reads an item's fields, {@link ItemCommands} the commands on one item
 * (shared with {@link BatchApi}), {@link ApiAnswers} turns waits and refusals into answers for every
 * endpoint class, {@link TopicsShowing} waits for a new topic to show in the topics table.
 */
public final class QueueApi {
  /** Longest long poll, as SQS's 20 s: a dequeue holds an HTTP thread while it waits. */
  public static final long MAX_WAIT_MS = 20_000;
  /** How long an enqueue waits for Kafka's acknowledgement before answering 504. */
  static final Duration ENQUEUE_TIMEOUT = Duration.ofSeconds(30);

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
    JsonBody b = JsonBody.parse(r.body(), ItemFields.ENQUEUE_FIELDS);
    EnqueueRequest request = ItemFields.enqueueRequest(b, r.pathParam("ns"), r.pathParam("topic"),
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

  /** {@code POST /v1/items/{id}/<command>}: the item's ID from the path, the command's fields from the body. */
  private ApiHandler single(Set<String> fields, ItemCommand command) {
    return r -> {
      ItemId id = ItemId.parse(r.pathParam("id"));
      JsonBody b = JsonBody.parse(r.body(), fields);
      return outcome(id, command.check(client.within(r.caller().scope(Permission.CONSUME)), id, b).get(), r.caller());
    };
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

  /** An answer other than 200 that a handler decided on. */
  public static final class ApiException extends Exception {
    final int status;

    public ApiException(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }


  private static Set<String> fields(String... names) {
    return new LinkedHashSet<>(List.of(names));
  }
}