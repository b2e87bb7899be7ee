package dev.ordo.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.client.NamespaceAdmin;
import dev.ordo.client.NamespacePolicy;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.http.internal.JsonBody;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Namespace policies over HTTP (docs/http-api.md, "Namespace policies"):
 * {@code GET|PUT|DELETE /v1/namespaces/{ns}/policy}. A PUT replaces the whole policy; a field that
 * is out of range answers 400 naming it and writes nothing.
 */
public final class NamespaceApi {
  static final Set<String> FIELDS = new LinkedHashSet<>(List.of("defaults", "admissionRate", "maxBacklog",
      "dispatchRate", "groupConcurrency", "groupConcurrencyOverrides", "groupWeights", "sidelineAfterMs", "dedupWindowMs",
      "topicWeights", "ordered", "orderedTopics", "groupRate", "groupRateOverrides", "shards"));
  static final Set<String> RATE = new LinkedHashSet<>(List.of("perSecond", "burst"));
  static final Set<String> DEFAULTS = new LinkedHashSet<>(List.of("leaseMs", "ttlMs", "maxAttempts", "atMostOnce",
      "maxPayloadBytes"));

  private final NamespaceAdmin admin;

  public NamespaceApi(NamespaceAdmin admin) {
    this.admin = admin;
  }

  public void register(HttpRouter router) {
    router.get("/v1/namespaces/{ns}/policy", ApiAnswers.guarded(this::get));
    router.put("/v1/namespaces/{ns}/policy", ApiAnswers.guarded(this::put));
    router.delete("/v1/namespaces/{ns}/policy", ApiAnswers.guarded(this::delete));
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
    NamespacePolicy.Defaults defaults = null;
    JsonNode node = b.node("defaults");
    if (node != null) {
      try {
        JsonBody d = JsonBody.entry(node, DEFAULTS);
        defaults = new NamespacePolicy.Defaults(d.millis("leaseMs", 1), d.millis("ttlMs", 1),
            d.integer("maxAttempts", 1), d.bool("atMostOnce"), d.integer("maxPayloadBytes", 0));
      } catch (IllegalArgumentException e) {
        throw prefixed("defaults", e);
      }
    }
    NamespacePolicy.Rate admission = rate(b, "admissionRate");
    Long maxBacklog = b.number("maxBacklog", 1);
    NamespacePolicy.Rate dispatch = rate(b, "dispatchRate");
    Long sidelineAfterMs = b.number("sidelineAfterMs", 1);
    Long dedupWindowMs = b.number("dedupWindowMs", 0);
    Long concurrency = b.number("groupConcurrency", 1);
    if (concurrency != null && concurrency > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("groupConcurrency must be at most " + Integer.MAX_VALUE + ", got " + concurrency);
    }
    Map<String, Integer> overrides = new LinkedHashMap<>();
    groupMap(b, "groupConcurrencyOverrides").forEach((group, v) -> {
      if (!v.canConvertToInt() || !v.isIntegralNumber() || v.intValue() < 1) {
        throw new IllegalArgumentException("groupConcurrencyOverrides." + group + " must be a whole number >= 1, got " + v);
      }
      overrides.put(group, v.intValue());
    });
    Map<String, Double> weights = new LinkedHashMap<>();
    groupMap(b, "groupWeights").forEach((group, v) -> {
      if (!v.isNumber() || !(v.doubleValue() > 0) || Double.isInfinite(v.doubleValue())) {
        throw new IllegalArgumentException("groupWeights." + group + " must be a number > 0, got " + v);
      }
      weights.put(group, v.doubleValue());
    });
    Map<String, Double> topicWeights = new LinkedHashMap<>();
    nameMap(b, "topicWeights", "topic").forEach((topic, v) -> {
      if (!v.isNumber() || !(v.doubleValue() > 0) || Double.isInfinite(v.doubleValue())) {
        throw new IllegalArgumentException("topicWeights." + topic + " must be a finite number > 0, got " + v);
      }
      topicWeights.put(topic, v.doubleValue());
    });
    NamespacePolicy.Rate groupRate = rate(b, "groupRate");
    Map<String, NamespacePolicy.Rate> groupRates = new LinkedHashMap<>();
    groupMap(b, "groupRateOverrides").forEach((group, v) -> groupRates.put(group, rate(v, "groupRateOverrides." + group)));
    NamespacePolicy.Groups groups = concurrency == null && overrides.isEmpty() && weights.isEmpty() && groupRate == null
        && groupRates.isEmpty() ? null
        : new NamespacePolicy.Groups(concurrency == null ? null : concurrency.intValue(), overrides, weights, groupRate,
            groupRates);
    Boolean ordered = b.bool("ordered");
    Map<String, Boolean> orderedTopics = new LinkedHashMap<>();
    JsonNode topics = b.node("orderedTopics");
    if (topics != null) {
      if (!topics.isObject()) {
        throw new IllegalArgumentException("orderedTopics must be an object of topic to true or false, got " + topics);
      }
      topics.fields().forEachRemaining(e -> {
        try {
          dev.ordo.api.Names.check("topic", e.getKey());
        } catch (IllegalArgumentException bad) {
          throw new IllegalArgumentException("orderedTopics: " + bad.getMessage(), bad);
        }
        if (!e.getValue().isBoolean()) {
          throw new IllegalArgumentException("orderedTopics." + e.getKey() + " must be true or false, got " + e.getValue());
        }
        orderedTopics.put(e.getKey(), e.getValue().booleanValue());
      });
    }
    Long shards = b.number("shards", 1);
    if (shards != null && shards > dev.ordo.api.Shards.MAX) {
      throw new IllegalArgumentException("shards must be between 1 and " + dev.ordo.api.Shards.MAX + ", got " + shards);
    }
    return new NamespacePolicy(defaults, admission, maxBacklog, dispatch,
        sidelineAfterMs == null ? null : Duration.ofMillis(sidelineAfterMs), groups,
        dedupWindowMs == null ? null : Duration.ofMillis(dedupWindowMs), topicWeights, ordered, orderedTopics,
        shards == null ? null : shards.intValue());
  }

  /** A JSON object of group key → value, in order; empty when absent. Group keys are checked as names. */
  private static Map<String, JsonNode> groupMap(JsonBody b, String field) {
    return nameMap(b, field, "group key");
  }

  /** A JSON object of name → value, in order; empty when absent. The names are checked as {@code what}. */
  private static Map<String, JsonNode> nameMap(JsonBody b, String field, String what) {
    JsonNode node = b.node(field);
    Map<String, JsonNode> out = new LinkedHashMap<>();
    if (node == null) {
      return out;
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException(field + " must be an object of " + what + " to value, got " + node);
    }
    node.fields().forEachRemaining(e -> {
      try {
        dev.ordo.api.Names.check(what, e.getKey());
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException(field + ": " + bad.getMessage(), bad);
      }
      out.put(e.getKey(), e.getValue());
    });
    return out;
  }

  /** {@code {"perSecond": > 0, "burst": >= 1 (default: one second's worth)}}, or null when absent. */
  private static NamespacePolicy.Rate rate(JsonBody b, String field) {
    JsonNode node = b.node(field);
    return node == null ? null : rate(node, field);
  }

  /** {@link #rate(JsonBody, String)} of a node (not null), errors prefixed with {@code field}. */
  private static NamespacePolicy.Rate rate(JsonNode node, String field) {
    try {
      JsonBody r = JsonBody.entry(node, RATE);
      JsonNode perSecond = r.node("perSecond");
      if (perSecond == null) {
        throw new IllegalArgumentException("perSecond is missing: items a second, e.g. {\"perSecond\": 100}");
      }
      if (!perSecond.isNumber()) {
        throw new IllegalArgumentException("perSecond must be a number, got " + perSecond);
      }
      Long burst = r.number("burst", 1);
      return burst == null ? NamespacePolicy.Rate.perSecond(perSecond.doubleValue())
          : new NamespacePolicy.Rate(perSecond.doubleValue(), burst);
    } catch (IllegalArgumentException e) {
      throw prefixed(field, e);
    }
  }

  private static IllegalArgumentException prefixed(String field, IllegalArgumentException e) {
    String m = e.getMessage();
    return new IllegalArgumentException(m.startsWith(field + ".") ? m : field + "." + m, e);
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
    if (policy.admissionRate() != null) {
      m.put("admissionRate", Map.of("perSecond", policy.admissionRate().perSecond(), "burst",
          policy.admissionRate().burst()));
    }
    putIf(m, "maxBacklog", policy.maxBacklog());
    if (policy.dispatchRate() != null) {
      m.put("dispatchRate", Map.of("perSecond", policy.dispatchRate().perSecond(), "burst",
          policy.dispatchRate().burst()));
    }
    putIf(m, "sidelineAfterMs", policy.sidelineAfter() == null ? null : policy.sidelineAfter().toMillis());
    putIf(m, "dedupWindowMs", policy.dedupWindow() == null ? null : policy.dedupWindow().toMillis());
    NamespacePolicy.Groups g = policy.groups();
    if (g != null) {
      putIf(m, "groupConcurrency", g.concurrency());
      if (!g.concurrencyOverrides().isEmpty()) {
        m.put("groupConcurrencyOverrides", new java.util.TreeMap<>(g.concurrencyOverrides()));
      }
      if (!g.weights().isEmpty()) {
        m.put("groupWeights", new java.util.TreeMap<>(g.weights()));
      }
      if (g.rate() != null) {
        m.put("groupRate", rateView(g.rate()));
      }
      if (!g.rateOverrides().isEmpty()) {
        Map<String, Object> rates = new java.util.TreeMap<>();
        g.rateOverrides().forEach((group, r) -> rates.put(group, rateView(r)));
        m.put("groupRateOverrides", rates);
      }
    }
    if (!policy.topicWeights().isEmpty()) {
      m.put("topicWeights", new java.util.TreeMap<>(policy.topicWeights()));
    }
    putIf(m, "ordered", policy.ordered());
    if (!policy.orderedTopics().isEmpty()) {
      m.put("orderedTopics", new java.util.TreeMap<>(policy.orderedTopics()));
    }
    putIf(m, "shards", policy.shards());
    return m;
  }

  private static Map<String, Object> rateView(NamespacePolicy.Rate r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("perSecond", r.perSecond());
    m.put("burst", r.burst());
    return m;
  }

  private static void putIf(Map<String, Object> m, String key, Object value) {
    if (value != null) {
      m.put(key, value);
    }
  }
}
