package dev.ordo.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.PayloadTooLargeException;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueProducer;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.auth.Permission;
import dev.ordo.server.http.QueueApi.ApiException;
import dev.ordo.server.http.internal.JsonBody;
import dev.ordo.server.http.internal.Views;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The batch endpoints (docs/http-api.md), as SQS has them: ack, nack, extend and release of many
 * items, and enqueue of many items, in one request. Every entry is answered, in request order, with
 * the status a single request would have had; a bad entry (a malformed ID, a missing lease, an
 * unknown field) is answered 400 alone and sends nothing, the good ones go on. Only a request that
 * is not a JSON object with a list of 1 to {@link #MAX_ENTRIES} entries is refused as a whole.
 *
 * <p>The commands of a batch are sent at once and awaited together: acks of one partition travel as
 * one command ({@link QueueClient#ackAll}), the rest as one command each, all in flight at the same
 * time.
 */
final class BatchApi {
  /** Most entries of one batch request. */
  static final int MAX_ENTRIES = 1000;

  static final Set<String> BATCH_FIELDS = Set.of("items");
  static final Set<String> ACK_ENTRY = Set.of("id", "lease");
  static final Set<String> NACK_ENTRY = Set.of("id", "lease", "delayMs", "metadata", "metadataBase64", "error", "deadLetter");
  static final Set<String> EXTEND_ENTRY = Set.of("id", "lease", "leaseMs");
  static final Set<String> ENQUEUE_ENTRY;

  static {
    java.util.Set<String> fields = new java.util.LinkedHashSet<>(ItemFields.ENQUEUE_FIELDS);
    fields.add("topic");
    ENQUEUE_ENTRY = java.util.Collections.unmodifiableSet(fields);
  }

  private final QueueProducer producer;
  private final QueueClient client;

  BatchApi(QueueProducer producer, QueueClient client) {
    this(producer, client, null);
  }

  /** @param consumers told of the items settled and extended (decisions D58); null: none */
  BatchApi(QueueProducer producer, QueueClient client, dev.ordo.server.http.internal.HttpConsumerMeters consumers) {
    this.producer = producer;
    this.client = client;
    this.consumers = consumers;
  }

  private final dev.ordo.server.http.internal.HttpConsumerMeters consumers;

  void register(HttpRouter router) {
    router.post("/v1/items/ack", ApiAnswers.guarded(this::ack));
    router.post("/v1/items/nack", ApiAnswers.guarded(this::nack));
    router.post("/v1/items/extend", ApiAnswers.guarded(this::extend));
    router.post("/v1/items/release", ApiAnswers.guarded(this::release));
    router.post("/v1/namespaces/{ns}/items", ApiAnswers.guarded(this::enqueue));
  }

  /** One entry's answer: a future to wait for, or the answer already known (a bad entry). */
  private record Pending(String id, CompletableFuture<?> future, Map<String, Object> known) {
    static Pending refused(String id, int status, String error) {
      Map<String, Object> m = new LinkedHashMap<>();
      if (id != null) {
        m.put("id", id);
      }
      m.put("result", status == 413 ? "TOO_LARGE" : "INVALID");
      m.put("status", status);
      m.put("error", error);
      return new Pending(id, null, m);
    }
  }

  HttpResponse ack(HttpRequest r) {
    List<JsonNode> entries = entries(r);
    List<Pending> pending = new ArrayList<>(entries.size());
    List<Map.Entry<ItemId, String>> good = new ArrayList<>();
    List<Integer> goodAt = new ArrayList<>();
    for (JsonNode node : entries) {
      String id = idText(node);
      try {
        JsonBody b = JsonBody.entry(node, ACK_ENTRY);
        ItemId item = itemId(b);
        good.add(new AbstractMap.SimpleImmutableEntry<>(item, ItemCommands.lease(b)));
        goodAt.add(pending.size());
        pending.add(null);
      } catch (IllegalArgumentException e) {
        pending.add(Pending.refused(id, 400, e.getMessage()));
      }
    }
    List<CompletableFuture<CommandOutcome>> futures = good.isEmpty() ? List.of()
        : client.within(r.caller().scope(Permission.CONSUME)).ackAll(good);
    if (consumers != null) {
      for (int i = 0; i < futures.size(); i++) {
        Map.Entry<ItemId, String> e = good.get(i);
        futures.get(i).thenAccept(o -> ItemCommands.observe(consumers, e.getKey().toString(), e.getValue(), false, o));
      }
    }
    for (int i = 0; i < futures.size(); i++) {
      pending.set(goodAt.get(i), new Pending(good.get(i).getKey().toString(), futures.get(i), null));
    }
    return answer(pending);
  }

  HttpResponse nack(HttpRequest r) {
    return each(r, NACK_ENTRY, ItemCommands.observed(ItemCommands.NACK, consumers));
  }

  HttpResponse extend(HttpRequest r) {
    return each(r, EXTEND_ENTRY, ItemCommands.observed(ItemCommands.EXTEND, consumers));
  }

  HttpResponse release(HttpRequest r) {
    return each(r, ACK_ENTRY, ItemCommands.observed(ItemCommands.RELEASE, consumers));
  }

  /** {@code POST /v1/namespaces/{ns}/items}: each entry an enqueue's fields plus its {@code topic}. */
  HttpResponse enqueue(HttpRequest r) {
    String namespace = r.pathParam("ns");
    String traceId = r.header("x-request-id").orElse(null);
    List<JsonNode> entries = entries(r);
    // Every entry is checked before any is sent: a bad one is answered alone, the rest go together.
    List<Object> checked = new ArrayList<>(entries.size());
    for (JsonNode node : entries) {
      try {
        JsonBody b = JsonBody.entry(node, ENQUEUE_ENTRY);
        String topic = b.string("topic");
        if (topic == null) {
          throw new IllegalArgumentException("topic is missing: the topic of the namespace to enqueue to");
        }
        checked.add(ItemFields.enqueueRequest(b, namespace, topic, traceId));
      } catch (IllegalArgumentException e) {
        checked.add(Pending.refused(null, 400, e.getMessage()));
      }
    }
    List<Pending> pending = new ArrayList<>(entries.size());
    for (Object c : checked) {
      if (c instanceof Pending refused) {
        pending.add(refused);
        continue;
      }
      try {
        EnqueueRequest request = (EnqueueRequest) c;
        // With a deduplication ID the answer is the queue's (which item holds, decisions D57).
        pending.add(new Pending(null, request.dedupId() == null ? producer.enqueue(request, java.time.Duration.ZERO)
            : client.enqueue(producer, request, java.time.Duration.ZERO), null));
      } catch (PayloadTooLargeException e) {
        pending.add(Pending.refused(null, 413, e.getMessage()));
      } catch (dev.ordo.client.HeadersTooLargeException e) {
        pending.add(Pending.refused(null, 400, e.getMessage()));
      }
    }
    return answer(pending);
  }

  /** Checks every entry, then sends the good ones at once and answers all of them. */
  private HttpResponse each(HttpRequest r, Set<String> fields, ItemCommands.ItemCommand command) {
    List<JsonNode> entries = entries(r);
    List<Object> checked = new ArrayList<>(entries.size());
    QueueClient.Scoped scoped = client.within(r.caller().scope(Permission.CONSUME));
    for (JsonNode node : entries) {
      String id = idText(node);
      try {
        JsonBody b = JsonBody.entry(node, fields);
        ItemId item = itemId(b);
        checked.add(new AbstractMap.SimpleImmutableEntry<>(item, command.check(scoped, item, b)));
      } catch (IllegalArgumentException e) {
        checked.add(Pending.refused(id, 400, e.getMessage()));
      }
    }
    List<Pending> pending = new ArrayList<>(entries.size());
    for (Object c : checked) {
      if (c instanceof Pending refused) {
        pending.add(refused);
      } else {
        @SuppressWarnings("unchecked")
        Map.Entry<ItemId, java.util.function.Supplier<CompletableFuture<CommandOutcome>>> e =
            (Map.Entry<ItemId, java.util.function.Supplier<CompletableFuture<CommandOutcome>>>) c;
        pending.add(new Pending(e.getKey().toString(), e.getValue().get(), null));
      }
    }
    return answer(pending);
  }

  private static List<JsonNode> entries(HttpRequest r) {
    return JsonBody.parse(r.body(), BATCH_FIELDS).array("items", MAX_ENTRIES);
  }

  private static ItemId itemId(JsonBody b) {
    String id = b.string("id");
    if (id == null) {
      throw new IllegalArgumentException("id is missing: the item ID, e.g. 3-1042");
    }
    return ItemId.parse(id);
  }

  /** The entry's {@code id} as sent, to name it in its answer even when it is malformed. */
  private static String idText(JsonNode node) {
    JsonNode id = node == null ? null : node.get("id");
    return id != null && id.isTextual() ? id.asText() : null;
  }

  /** Waits for every entry (all are in flight already) and answers {@code {"results": [...]}} in order. */
  private static HttpResponse answer(List<Pending> pending) {
    List<Map<String, Object>> results = new ArrayList<>(pending.size());
    for (Pending p : pending) {
      results.add(p.known() != null ? p.known() : result(p));
    }
    return HttpResponse.ok(Map.of("results", results));
  }

  private static Map<String, Object> result(Pending p) {
    Object value;
    try {
      value = ApiAnswers.await(p.future(), ApiAnswers.SLACK,
          p.id() == null ? "the enqueue" : "the command on item " + p.id());
    } catch (ApiException e) {
      Map<String, Object> m = new LinkedHashMap<>();
      if (p.id() != null) {
        m.put("id", p.id());
      }
      m.put("result", e.status == 504 ? "TIMEOUT" : e.status == 429 ? "BACKLOG_FULL" : "UNAVAILABLE");
      m.put("status", e.status);
      m.put("error", e.getMessage());
      return m;
    } catch (IllegalArgumentException e) {
      return Pending.refused(p.id(), 400, e.getMessage()).known();
    }
    if (value instanceof ItemId id) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", id.toString());
      m.put("result", "ENQUEUED");
      m.put("status", 201);
      return m;
    }
    if (value instanceof dev.ordo.client.Enqueued e) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", e.id().toString());
      m.put("result", e.duplicate() ? "DUPLICATE" : "ENQUEUED");
      m.put("status", e.duplicate() ? 200 : 201);
      m.put("duplicate", e.duplicate());
      return m;
    }
    CommandOutcome o = (CommandOutcome) value;
    if (o.forbiddenNamespace() != null) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", p.id());
      m.put("result", "FORBIDDEN");
      m.put("status", 403);
      m.put("error", "permission 'consume' on namespace '" + o.forbiddenNamespace() + "' is required");
      return m;
    }
    String detail = o.detail() == null ? "" : ": " + o.detail();
    Map<String, Object> m = new LinkedHashMap<>();
    switch (o.result()) {
      case APPLIED -> {
        m.putAll(Views.applied(o));
        m.put("status", 200);
        return m;
      }
      case STALE_LEASE -> m.put("error", "stale lease for item " + p.id() + detail);
      case UNKNOWN_ITEM -> m.put("error", "unknown item " + p.id() + detail);
      case INVALID -> m.put("error", "refused by the queue" + detail);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", p.id());
    out.put("result", o.result().name());
    out.put("status", switch (o.result()) {
      case STALE_LEASE -> 409;
      case UNKNOWN_ITEM -> 404;
      default -> 400;
    });
    out.putAll(m);
    return out;
  }
}
