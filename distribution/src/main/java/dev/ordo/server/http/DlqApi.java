package dev.ordo.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.client.dlq.DeadLetterFilter;
import dev.ordo.client.dlq.DeadLetterId;
import dev.ordo.client.dlq.DeadLetterInfo;
import dev.ordo.client.dlq.DeadLetterPage;
import dev.ordo.client.dlq.DeadLetterSelection;
import dev.ordo.client.dlq.DeadLetterStatus;
import dev.ordo.client.dlq.DeadLetters;
import dev.ordo.client.dlq.DlqJobFinishedException;
import dev.ordo.client.dlq.DlqJobView;
import dev.ordo.client.dlq.RedriveRequest;
import dev.ordo.client.dlq.UnknownDeadLetterException;
import dev.ordo.client.dlq.UnknownDlqJobException;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.auth.Caller;
import dev.ordo.server.auth.Permission;
import dev.ordo.server.http.QueueApi.ApiException;
import dev.ordo.server.http.internal.JsonBody;
import dev.ordo.server.http.internal.Views;
import dev.ordo.server.internal.Messages;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.KafkaException;

/**
 * Dead letters over HTTP (docs/http-api.md, "Dead letters"; the workflow in docs/operations.md):
 * list and show them ({@code GET /v1/dlq}, {@code GET /v1/dlq/{id}}), start redrive and purge jobs
 * ({@code POST /v1/dlq/redrive}, {@code POST /v1/dlq/purge}, 202 with the job), read their
 * progress ({@code GET /v1/dlq/redrives/{job}}, {@code GET /v1/dlq/purges/{job}}) and cancel them
 * ({@code POST /v1/dlq/redrives/{job}/cancel}, {@code .../purges/{job}/cancel}: 202 CANCELLING, 409
 * once finished). Everything is read
 * from and written to Kafka through one {@link DeadLetters}, so any instance answers.
 */
public final class DlqApi {
  static final int DEFAULT_LIMIT = 100;
  static final Set<String> LIST_PARAMS = fields("namespace", "topic", "reason", "from", "to", "status", "limit", "cursor");
  static final Set<String> FILTER_FIELDS = fields("namespace", "topic", "reason", "from", "to");
  static final Set<String> REDRIVE_FIELDS = fields("ids", "filter", "all", "namespace", "topic", "priority",
      "ratePerSecond", "delayMs");
  static final Set<String> PURGE_FIELDS = fields("ids", "filter", "all");
  /** Most IDs one job names; larger selections go by filter. */
  static final int MAX_IDS = 1000;

  private final DeadLetters deadLetters;

  public DlqApi(DeadLetters deadLetters) {
    this.deadLetters = deadLetters;
  }

  public void register(HttpRouter router) {
    router.get("/v1/dlq", ApiAnswers.guarded(this::list));
    router.get("/v1/dlq/{id}", ApiAnswers.guarded(this::show));
    router.post("/v1/dlq/redrive", ApiAnswers.guarded(this::redrive));
    router.post("/v1/dlq/purge", ApiAnswers.guarded(this::purge));
    router.get("/v1/dlq/redrives/{job}", ApiAnswers.guarded(r -> job(r, DlqJobView.Kind.REDRIVE)));
    router.get("/v1/dlq/purges/{job}", ApiAnswers.guarded(r -> job(r, DlqJobView.Kind.PURGE)));
    router.post("/v1/dlq/redrives/{job}/cancel", ApiAnswers.guarded(r -> cancel(r, DlqJobView.Kind.REDRIVE)));
    router.post("/v1/dlq/purges/{job}/cancel", ApiAnswers.guarded(r -> cancel(r, DlqJobView.Kind.PURGE)));
  }

  HttpResponse list(HttpRequest r) throws ApiException {
    for (String name : r.query().keySet()) {
      if (!LIST_PARAMS.contains(name)) {
        throw new IllegalArgumentException("unknown parameter '" + name + "' (known: " + String.join(", ", LIST_PARAMS) + ")");
      }
    }
    DeadLetterFilter filter = filter(name -> r.queryParam(name).orElse(null),
        r.query().getOrDefault("reason", List.of()));
    permitted(r.caller(), filter.namespace(), "?namespace=");
    Set<DeadLetterStatus> statuses = statuses(r.queryParam("status").orElse("dead"));
    int limit = r.queryParam("limit").map(DlqApi::limit).orElse(DEFAULT_LIMIT);
    String cursor = r.queryParam("cursor").orElse(null);
    DeadLetterPage page = call(() -> deadLetters.list(filter, statuses, limit, cursor), "listing the dead letters");
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("deadLetters", page.deadLetters().stream().map(d -> view(d, false)).toList());
    body.put("nextCursor", page.nextCursor());
    body.put("scanned", page.scanned());
    return HttpResponse.ok(body);
  }

  HttpResponse show(HttpRequest r) throws ApiException {
    DeadLetterId id = DeadLetterId.parse(r.pathParam("id"));
    Optional<DeadLetterInfo> found = call(() -> deadLetters.get(id), "reading dead letter " + id);
    if (found.isEmpty()) {
      throw new ApiException(404, "unknown dead letter " + id + ": no such record on " + deadLetters.topics().dlq()
          + " (never written, or past its retention)");
    }
    if (!r.caller().may(Permission.OPERATE, found.get().namespace())) {
      throw new ApiException(403, r.caller().missing(Permission.OPERATE, "namespace '" + found.get().namespace()
          + "' (dead letter " + id + ")"));
    }
    return HttpResponse.ok(view(found.get(), true));
  }

  HttpResponse redrive(HttpRequest r) throws ApiException {
    JsonBody b = JsonBody.parse(r.body(), REDRIVE_FIELDS);
    DeadLetterSelection selection = selection(b);
    permitted(r.caller(), selection);
    if (b.string("namespace") != null && !r.caller().may(Permission.OPERATE, b.string("namespace"))) {
      throw new ApiException(403, r.caller().missing(Permission.OPERATE, "namespace '" + b.string("namespace")
          + "' (the redrive's target)"));
    }
    Integer priority = b.integer("priority", Integer.MIN_VALUE);
    JsonNode rate = b.node("ratePerSecond");
    if (rate != null && !rate.isNumber()) {
      throw new IllegalArgumentException("ratePerSecond must be a number > 0, got " + rate);
    }
    Long delayMs = b.millis("delayMs", 0);
    RedriveRequest request = new RedriveRequest(selection, b.string("namespace"), b.string("topic"), priority,
        rate == null ? null : rate.doubleValue(), delayMs == null ? null : Duration.ofMillis(delayMs));
    DlqJobView job = call(() -> deadLetters.redrive(request), "starting the redrive");
    return HttpResponse.json(202, jobView(job)).withHeader("Location", "/v1/dlq/redrives/" + job.id());
  }

  HttpResponse purge(HttpRequest r) throws ApiException {
    JsonBody b = JsonBody.parse(r.body(), PURGE_FIELDS);
    DeadLetterSelection selection = selection(b);
    permitted(r.caller(), selection);
    DlqJobView job = call(() -> deadLetters.purge(selection), "starting the purge");
    return HttpResponse.json(202, jobView(job)).withHeader("Location", "/v1/dlq/purges/" + job.id());
  }

  HttpResponse job(HttpRequest r, DlqJobView.Kind kind) throws ApiException {
    String id = r.pathParam("job");
    Optional<DlqJobView> job = call(() -> deadLetters.job(id), "reading job " + id);
    if (job.isEmpty() || job.get().kind() != kind) {
      throw new ApiException(404, "unknown " + kind.name().toLowerCase(java.util.Locale.ROOT) + " job " + id);
    }
    return HttpResponse.ok(jobView(job.get()));
  }

  /**
   * Cancels a PENDING or RUNNING job: 202 with it (CANCELLING until the job runner stopped it before
   * its next batch, then CANCELLED), 404 for an unknown job (or one of the other kind), 409 for a
   * finished one. Who may start the job may cancel it: {@code operate} on its filter's namespace (and
   * its target's), or everywhere for a selection by IDs or of everything.
   */
  HttpResponse cancel(HttpRequest r, DlqJobView.Kind kind) throws ApiException {
    JsonBody.parse(r.body(), Set.of()); // no fields: an empty body or {}
    String id = r.pathParam("job");
    String name = kind.name().toLowerCase(java.util.Locale.ROOT);
    Optional<DlqJobView> found = call(() -> deadLetters.job(id), "reading job " + id);
    if (found.isEmpty() || found.get().kind() != kind) {
      throw new ApiException(404, "unknown " + name + " job " + id);
    }
    permitted(r.caller(), found.get().selection());
    if (found.get().namespace() != null && !r.caller().may(Permission.OPERATE, found.get().namespace())) {
      throw new ApiException(403, r.caller().missing(Permission.OPERATE, "namespace '" + found.get().namespace()
          + "' (the redrive's target)"));
    }
    DlqJobView job = call(() -> deadLetters.cancel(id), "cancelling job " + id);
    return HttpResponse.json(202, jobView(job)).withHeader("Location", "/v1/dlq/" + name + "s/" + id);
  }

  // ---- permissions ----

  /**
   * A caller without {@code operate} on every namespace names one it may operate: dead letters of
   * all namespaces share one topic, and a selection by IDs or of everything would reach others.
   */
  private static void permitted(Caller caller, String namespace, String how) throws ApiException {
    if (caller.mayEverywhere(Permission.OPERATE)) {
      return;
    }
    if (namespace == null) {
      throw new ApiException(403, caller.missing(Permission.OPERATE, "every namespace") + "; name a namespace you may"
          + " operate with " + how);
    }
    if (!caller.may(Permission.OPERATE, namespace)) {
      throw new ApiException(403, caller.missing(Permission.OPERATE, "namespace '" + namespace + "'"));
    }
  }

  private static void permitted(Caller caller, DeadLetterSelection selection) throws ApiException {
    permitted(caller, selection.filter() == null ? null : selection.filter().namespace(), "filter.namespace");
  }

  // ---- input ----

  /** {@code ids}, {@code filter} or {@code "all": true}: exactly one, so that "all" is never chosen by leaving something out. */
  static DeadLetterSelection selection(JsonBody b) {
    boolean all = Boolean.TRUE.equals(b.bool("all"));
    int given = (b.has("ids") ? 1 : 0) + (b.has("filter") ? 1 : 0) + (all ? 1 : 0);
    if (given != 1) {
      throw new IllegalArgumentException("select the dead letters with one of ids (a list), filter (an object) or"
          + " \"all\": true" + (given > 1 ? ", not several" : ""));
    }
    if (all) {
      return DeadLetterSelection.all();
    }
    if (b.has("ids")) {
      List<DeadLetterId> ids = new ArrayList<>();
      for (JsonNode n : b.array("ids", MAX_IDS)) {
        if (!n.isTextual()) {
          throw new IllegalArgumentException("ids must hold dead-letter IDs as strings, got " + n);
        }
        try {
          ids.add(DeadLetterId.parse(n.textValue()));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("ids: " + e.getMessage());
        }
      }
      return DeadLetterSelection.ids(ids);
    }
    JsonBody f;
    try {
      f = JsonBody.entry(b.node("filter"), FILTER_FIELDS);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("filter: " + e.getMessage().replace("an entry", "filter"));
    }
    JsonNode reason = f.node("reason");
    List<String> reasons = new ArrayList<>();
    if (reason != null) {
      if (reason.isTextual()) {
        reasons.add(reason.textValue());
      } else if (reason.isArray()) {
        reason.forEach(n -> reasons.add(n.isTextual() ? n.textValue() : n.toString()));
      } else {
        throw new IllegalArgumentException("filter.reason must be a reason or a list of them, got " + reason);
      }
    }
    try {
      DeadLetterFilter filter = filter(f::string, reasons);
      if (filter.isAny()) {
        throw new IllegalArgumentException("filter is empty: to select every dead letter, say \"all\": true");
      }
      return DeadLetterSelection.filter(filter);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage().startsWith("filter") ? e.getMessage() : "filter." + e.getMessage());
    }
  }

  /** A filter from named text values (query parameters or a JSON object's fields); reasons may be comma-separated. */
  static DeadLetterFilter filter(java.util.function.Function<String, String> value, List<String> reasonValues) {
    Set<String> reasons = new LinkedHashSet<>();
    for (String v : reasonValues) {
      for (String part : v.split(",")) {
        if (!part.isBlank()) {
          reasons.add(part.trim().toUpperCase(java.util.Locale.ROOT));
        }
      }
    }
    return new DeadLetterFilter(value.apply("namespace"), value.apply("topic"), reasons, time("from", value.apply("from")),
        time("to", value.apply("to")));
  }

  static Instant time(String field, String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(field + " must be an ISO-8601 time such as 2026-11-22T10:00:00Z, got '" + text + "'");
    }
  }

  static Set<DeadLetterStatus> statuses(String text) {
    if (text.equalsIgnoreCase("all")) {
      return EnumSet.noneOf(DeadLetterStatus.class);
    }
    try {
      return EnumSet.of(DeadLetterStatus.valueOf(text.toUpperCase(java.util.Locale.ROOT)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("status must be dead, redriven, purged or all, got '" + text + "'");
    }
  }

  static int limit(String text) {
    try {
      int n = Integer.parseInt(text);
      if (n >= 1 && n <= DeadLetters.MAX_LIMIT) {
        return n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new IllegalArgumentException("limit must be a whole number from 1 to " + DeadLetters.MAX_LIMIT + ", got '"
        + text + "'");
  }

  // ---- output ----

  static Map<String, Object> view(DeadLetterInfo d, boolean withHistory) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", d.id().toString());
    m.put("status", d.status().name());
    m.put("reason", d.reason());
    m.put("detail", d.detail());
    m.put("deadAt", d.deadAt() == null ? null : d.deadAt().toString());
    m.put("itemId", d.itemId());
    if (d.namespace() != null) {
      m.put("namespace", d.namespace());
      m.put("topic", d.topic());
      m.put("priority", d.priority());
      Views.putBytes(m, "payload", d.payload());
      Views.putBytes(m, "metadata", d.metadata());
      if (d.groupKey() != null) {
        m.put("groupKey", d.groupKey());
      }
      if (d.traceId() != null) {
        m.put("traceId", d.traceId());
      }
      Views.putHeaders(m, d.headers());
    }
    m.put("attempts", d.attempts());
    m.put("lastError", d.lastError());
    if (d.source() != null) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("topic", d.source().topic());
      s.put("partition", d.source().partition());
      s.put("offset", d.source().offset());
      m.put("source", s);
    }
    if (d.rawValue() != null && d.namespace() == null) {
      Views.putBytes(m, "rawKey", d.rawKey());
      Views.putBytes(m, "rawValue", d.rawValue());
    }
    m.put("redrivable", d.redrivable());
    if (d.job() != null) {
      m.put("job", d.job());
      m.put("handledAt", d.handledAt().toString());
    }
    if (d.redrivenTo() != null) {
      m.put("redrivenTo", d.redrivenTo());
    }
    if (withHistory) {
      List<Map<String, Object>> history = new ArrayList<>();
      for (DeadLetterInfo.Attempt a : d.history()) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("attempt", a.attempt());
        h.put("leasedAt", a.leasedAt().toString());
        h.put("endedAt", a.endedAt().toString());
        h.put("outcome", a.outcome());
        if (a.error() != null) {
          h.put("error", a.error());
        }
        history.add(h);
      }
      m.put("history", history);
    }
    return m;
  }

  static Map<String, Object> jobView(DlqJobView j) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("job", j.id());
    m.put("kind", j.kind().name());
    m.put("status", j.status().name());
    Map<String, Object> selection = new LinkedHashMap<>();
    if (!j.selection().ids().isEmpty()) {
      selection.put("ids", j.selection().ids().stream().map(DeadLetterId::toString).toList());
    } else if (j.selection().filter().isAny()) {
      selection.put("all", true);
    } else {
      DeadLetterFilter f = j.selection().filter();
      Map<String, Object> fm = new LinkedHashMap<>();
      putIf(fm, "namespace", f.namespace());
      putIf(fm, "topic", f.topic());
      if (!f.reasons().isEmpty()) {
        fm.put("reason", List.copyOf(new java.util.TreeSet<>(f.reasons())));
      }
      putIf(fm, "from", f.from() == null ? null : f.from().toString());
      putIf(fm, "to", f.to() == null ? null : f.to().toString());
      selection.put("filter", fm);
    }
    m.put("selection", selection);
    if (j.kind() == DlqJobView.Kind.REDRIVE) {
      putIf(m, "namespace", j.namespace());
      putIf(m, "topic", j.topic());
      putIf(m, "priority", j.priority());
      putIf(m, "ratePerSecond", j.ratePerSecond());
      putIf(m, "delayMs", j.delay() == null ? null : j.delay().toMillis());
    }
    m.put("total", j.total());
    m.put("scanned", j.scanned());
    m.put(j.kind() == DlqJobView.Kind.REDRIVE ? "redriven" : "purged", j.handled());
    m.put("skipped", j.skipped());
    m.put("createdAt", j.createdAt().toString());
    m.put("updatedAt", j.updatedAt().toString());
    m.put("finishedAt", j.finishedAt() == null ? null : j.finishedAt().toString());
    putIf(m, "error", j.error());
    putIf(m, "cancelRequestedAt", j.cancelRequestedAt() == null ? null : j.cancelRequestedAt().toString());
    return m;
  }

  private static void putIf(Map<String, Object> m, String key, Object value) {
    if (value != null) {
      m.put(key, value);
    }
  }

  @FunctionalInterface
  private interface Call<T> {
    T get();
  }

  /** Runs a call of the client: an unknown dead letter or job is 404, a finished job to cancel 409, a Kafka failure 503. */
  private static <T> T call(Call<T> call, String what) throws ApiException {
    try {
      return call.get();
    } catch (UnknownDeadLetterException | UnknownDlqJobException e) {
      throw new ApiException(404, e.getMessage());
    } catch (DlqJobFinishedException e) {
      throw new ApiException(409, e.getMessage());
    } catch (KafkaException e) {
      throw new ApiException(503, "Kafka failed " + what + ": " + Messages.oneLine(e));
    }
  }

  private static Set<String> fields(String... names) {
    return new LinkedHashSet<>(List.of(names));
  }
}
