package dev.ordo.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.client.QueueClient;
import dev.ordo.client.TopicActivity;
import dev.ordo.client.purge.PurgeJobView;
import dev.ordo.client.purge.TopicPurges;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.http.internal.JsonBody;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Purging a topic over HTTP (docs/http-api.md, "Purge a topic"; decisions D56):
 * {@code POST /v1/namespaces/{ns}/topics/{topic}/purge} starts a job ({@link TopicPurges}), 202;
 * {@code GET /v1/namespaces/{ns}/topics/{topic}/purges/{job}} follows it.
 */
public final class TopicPurgeApi {
  static final Set<String> FIELDS = Set.of("enqueuedBefore", "includeLeased");

  private final TopicPurges purges;
  private final QueueClient client;

  public TopicPurgeApi(TopicPurges purges, QueueClient client) {
    this.purges = purges;
    this.client = client;
  }

  public void register(HttpRouter router) {
    router.post("/v1/namespaces/{ns}/topics/{topic}/purge", ApiAnswers.guarded(this::start));
    router.get("/v1/namespaces/{ns}/topics/{topic}/purges/{job}", ApiAnswers.guarded(this::get));
  }

  HttpResponse start(HttpRequest r) throws QueueApi.ApiException {
    JsonBody b = JsonBody.parse(r.body(), FIELDS);
    Instant before = time(b, "enqueuedBefore");
    boolean includeLeased = Boolean.TRUE.equals(b.bool("includeLeased"));
    String ns = r.pathParam("ns");
    String topic = r.pathParam("topic");
    List<TopicActivity> topics = TopicsShowing.topicsShowing(client, ns, topic);
    if (topics.stream().noneMatch(t -> t.topic().equals(topic))) {
      throw new QueueApi.ApiException(404, "unknown topic " + topic + " of namespace " + ns + ": it has no items"
          + (topics.isEmpty() ? "" : " (topics with items: "
          + String.join(", ", topics.stream().map(TopicActivity::topic).sorted().limit(20).toList()) + ")"));
    }
    PurgeJobView job = purges.start(ns, topic, before, includeLeased);
    return HttpResponse.json(202, view(job))
        .withHeader("Location", "/v1/namespaces/" + segment(ns) + "/topics/" + segment(topic) + "/purges/" + job.id());
  }

  HttpResponse get(HttpRequest r) throws QueueApi.ApiException {
    String job = r.pathParam("job");
    PurgeJobView view = purges.job(job)
        .filter(j -> j.namespace().equals(r.pathParam("ns")) && j.topic().equals(r.pathParam("topic")))
        .orElseThrow(() -> new QueueApi.ApiException(404, "unknown purge job " + job + " of topic "
            + r.pathParam("topic") + " of namespace " + r.pathParam("ns")));
    return HttpResponse.ok(view(view));
  }

  private static String segment(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** An ISO-8601 time or epoch milliseconds, or null when absent; 400 naming the field otherwise. */
  static Instant time(JsonBody b, String field) {
    JsonNode n = b.node(field);
    if (n == null) {
      return null;
    }
    if (n.isIntegralNumber() && n.canConvertToLong() && n.longValue() >= 0) {
      return Instant.ofEpochMilli(n.longValue());
    }
    if (n.isTextual()) {
      try {
        return Instant.parse(n.textValue());
      } catch (DateTimeParseException e) {
        // below
      }
    }
    throw new IllegalArgumentException(field + " must be an ISO-8601 time (2026-11-29T10:00:00Z) or epoch"
        + " milliseconds, got " + n);
  }

  static Map<String, Object> view(PurgeJobView j) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("job", j.id());
    m.put("namespace", j.namespace());
    m.put("topic", j.topic());
    m.put("enqueuedBefore", j.enqueuedBefore() == null ? null : j.enqueuedBefore().toString());
    m.put("includeLeased", j.includeLeased());
    m.put("status", j.status().name());
    m.put("purged", j.purged());
    m.put("purgedTotal", j.purgedTotal());
    m.put("leasedLeft", j.leasedLeft());
    m.put("scanned", j.scanned());
    m.put("partitions", j.partitions());
    m.put("partitionsDone", j.partitionsDone());
    m.put("createdAt", j.createdAt().toString());
    m.put("startedAt", j.startedAt() == null ? null : j.startedAt().toString());
    m.put("finishedAt", j.finishedAt() == null ? null : j.finishedAt().toString());
    return m;
  }
}
