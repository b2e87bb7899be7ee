package dev.ordo.server.http;

import dev.ordo.client.NamespaceAdmin;
import dev.ordo.client.NamespacePause;
import dev.ordo.client.QueueClient;
import dev.ordo.client.TopicActivity;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.http.internal.JsonBody;
import dev.ordo.server.http.internal.PauseTable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;

/**
 * Pause and resume over HTTP (docs/http-api.md, "Pause and resume"): {@code POST
 * /v1/namespaces/{ns}[/topics/{topic}]/(pause|resume)}. The change is written to the namespace's
 * record on {@code <cluster>.namespaces} ({@link NamespaceAdmin#pause}), which every partition reads;
 * the answer comes once this server's {@link PauseTable} shows it, so a listing right after agrees.
 *
 * <p>A name nobody uses is a 404, so that a misspelt topic is not paused in vain while the real one
 * goes on: a namespace must have items, a policy or a pause; a topic items or a pause.
 */
public final class PauseApi {
  private final NamespaceAdmin admin;
  private final QueueClient client;
  private final PauseTable table;
  private final Admin kafka;

  public PauseApi(NamespaceAdmin admin, QueueClient client, PauseTable table, Admin kafka) {
    this.admin = admin;
    this.client = client;
    this.table = table;
    this.kafka = kafka;
  }

  public void register(HttpRouter router) {
    router.post("/v1/namespaces/{ns}/pause", ApiAnswers.guarded(r -> change(r, false, true)));
    router.post("/v1/namespaces/{ns}/resume", ApiAnswers.guarded(r -> change(r, false, false)));
    router.post("/v1/namespaces/{ns}/topics/{topic}/pause", ApiAnswers.guarded(r -> change(r, true, true)));
    router.post("/v1/namespaces/{ns}/topics/{topic}/resume", ApiAnswers.guarded(r -> change(r, true, false)));
  }

  HttpResponse change(HttpRequest r, boolean ofTopic, boolean pause) throws QueueApi.ApiException {
    JsonBody.parse(r.body(), Set.of()); // no fields: an empty body or {}
    String ns = r.pathParam("ns");
    String topic = ofTopic ? r.pathParam("topic") : null;
    checkKnown(ns, topic);
    NamespacePause now;
    if (topic == null) {
      now = pause ? admin.pause(ns) : admin.resume(ns);
    } else {
      now = pause ? admin.pause(ns, topic) : admin.resume(ns, topic);
    }
    table.catchUp(kafka);
    return HttpResponse.ok(view(now, topic));
  }

  /** 404 for a namespace or topic nobody uses (see the class comment). */
  private void checkKnown(String ns, String topic) throws QueueApi.ApiException {
    NamespacePause pause = table.of(ns);
    if (topic != null && pause.pausedTopics().containsKey(topic)) {
      return;
    }
    if (topic == null && (!pause.isEmpty() || table.knows(ns))) {
      return;
    }
    List<TopicActivity> topics = TopicsShowing.topicsShowing(client, ns, topic);
    if (topic == null && !topics.isEmpty() || topic != null && topics.stream().anyMatch(t -> t.topic().equals(topic))) {
      return;
    }
    if (topic == null) {
      throw new QueueApi.ApiException(404, "unknown namespace " + ns + ": it has no items, no policy and no pause");
    }
    throw new QueueApi.ApiException(404, "unknown topic " + topic + " of namespace " + ns + ": it has no items and no"
        + " pause" + (topics.isEmpty() ? "" : " (topics with items: "
        + String.join(", ", topics.stream().map(TopicActivity::topic).sorted().limit(20).toList()) + ")"));
  }

  /** The namespace's pauses; {@code paused} says whether the topic (or the namespace, without one) is paused now. */
  static Map<String, Object> view(NamespacePause p, String topic) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("namespace", p.namespace());
    if (topic != null) {
      m.put("topic", topic);
    }
    m.put("paused", topic == null ? p.namespacePaused() : p.paused(topic));
    m.put("pausedAt", p.pausedAt() == null ? null : p.pausedAt().toString());
    Map<String, Object> topics = new TreeMap<>();
    p.pausedTopics().forEach((t, at) -> topics.put(t, at.toString()));
    m.put("pausedTopics", topics);
    return m;
  }
}
