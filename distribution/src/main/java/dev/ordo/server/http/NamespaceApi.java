package dev.ordo.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.client.NamespaceAdmin;
import dev.ordo.client.NamespacePolicy;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.http.internal.JsonBody;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Namespace policies over HTTP (docs/http-api.md, "Namespace policies"):
 * {@code GET|PUT|DELETE /v1/namespaces/{ns}/policy}. A PUT replaces the whole policy; a field that
 * is out of range answers 400 naming it and writes nothing. The policy fields of later versions
 * (rates, backlog, group limits, sidelining) are refused by name until they are enforced, rather than
 * stored and ignored.
 */
public final class NamespaceApi {
  static final Set<String> FIELDS = new LinkedHashSet<>(List.of("defaults", "admissionRate", "maxBacklog",
      "dispatchRate", "groupConcurrency", "groupWeights", "sidelineAfterMs"));
  static final Set<String> NOT_YET = Set.of("admissionRate", "maxBacklog", "dispatchRate", "groupConcurrency",
      "groupWeights", "sidelineAfterMs");
  static final Set<String> DEFAULTS = new LinkedHashSet<>(List.of("leaseMs", "ttlMs", "maxAttempts", "atMostOnce",
      "maxPayloadBytes"));

  private final NamespaceAdmin admin;

  public NamespaceApi(NamespaceAdmin admin) {
    this.admin = admin;
  }

  public void register(HttpRouter router) {
    router.get("/v1/namespaces/{ns}/policy", QueueApi.guarded(this::get));
    router.put("/v1/namespaces/{ns}/policy", QueueApi.guarded(this::put));
    router.delete("/v1/namespaces/{ns}/policy", QueueApi.guarded(this::delete));
  }

  HttpResponse get(HttpRequest r) throws QueueApi.ApiException {
    String ns = r.pathParam("ns");
    Optional<NamespacePolicy> policy = admin.get(ns);
    if (policy.isEmpty()) {
      throw new QueueApi.ApiException(404, "namespace " + ns + " has no policy: the server's settings apply");
    }
    return HttpResponse.ok(view(ns, policy.get()));
  }

  HttpResponse put(HttpRequest r) {
    String ns = r.pathParam("ns");
    NamespacePolicy policy = parse(r.body());
    admin.set(ns, policy);
    return HttpResponse.ok(view(ns, policy));
  }

  HttpResponse delete(HttpRequest r) {
    String ns = r.pathParam("ns");
    admin.delete(ns);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("namespace", ns);
    body.put("deleted", true);
    return HttpResponse.ok(body);
  }

  /** The policy a PUT body states; IllegalArgumentException (400) naming the first bad field. */
  static NamespacePolicy parse(byte[] body) {
    JsonBody b = JsonBody.parse(body, FIELDS);
    for (String field : FIELDS) {
      if (NOT_YET.contains(field) && b.has(field)) {
        throw new IllegalArgumentException(field + " is not supported yet: this server enforces defaults only"
            + " (rates, backlog limits, group limits and sidelining come with later versions)");
      }
    }
    JsonNode node = b.node("defaults");
    if (node == null) {
      return new NamespacePolicy(null);
    }
    try {
      JsonBody d = JsonBody.entry(node, DEFAULTS);
      return new NamespacePolicy(new NamespacePolicy.Defaults(d.millis("leaseMs", 1), d.millis("ttlMs", 1),
          d.integer("maxAttempts", 1), d.bool("atMostOnce"), d.integer("maxPayloadBytes", 0)));
    } catch (IllegalArgumentException e) {
      String m = e.getMessage();
      throw new IllegalArgumentException(m.startsWith("defaults.") ? m : "defaults." + m, e);
    }
  }

  static Map<String, Object> view(String ns, NamespacePolicy policy) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("namespace", ns);
    NamespacePolicy.Defaults d = policy.defaults();
    if (d != null) {
      Map<String, Object> dm = new LinkedHashMap<>();
      putIf(dm, "leaseMs", d.leaseMs());
      putIf(dm, "ttlMs", d.ttlMs());
      putIf(dm, "maxAttempts", d.maxAttempts());
      putIf(dm, "atMostOnce", d.atMostOnce());
      putIf(dm, "maxPayloadBytes", d.maxPayloadBytes());
      m.put("defaults", dm);
    }
    return m;
  }

  private static void putIf(Map<String, Object> m, String key, Object value) {
    if (value != null) {
      m.put(key, value);
    }
  }
}
