package dev.ordo.server.auth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Principals, who-am-I and the audit log over HTTP (docs/security.md): {@code GET /v1/whoami} for any
 * principal; {@code /v1/principals...} and {@code GET /v1/audit} for an admin of every namespace.
 * A token is shown once, in the answer that made it.
 */
public final class AuthApi {
  private static final Set<String> PRINCIPAL_FIELDS = Set.of("name", "grants", "token");

  private final PrincipalStore principals;
  private final AuditLog audit;
  private final SecurityConfig.Mode mode;
  private final Clock clock;

  public AuthApi(PrincipalStore principals, AuditLog audit, SecurityConfig.Mode mode, Clock clock) {
    this.principals = principals;
    this.audit = audit;
    this.mode = mode;
    this.clock = clock;
  }

  public void register(HttpRouter router) {
    router.get("/v1/whoami", this::whoami);
    router.get("/v1/principals", r -> HttpResponse.ok(Map.of("principals",
        principals.all().stream().map(AuthApi::view).toList())));
    router.post("/v1/principals", this::add);
    router.get("/v1/principals/{name}", found(r -> HttpResponse.ok(view(existing(r)))));
    router.put("/v1/principals/{name}", found(this::setGrants));
    router.delete("/v1/principals/{name}", this::remove);
    router.post("/v1/principals/{name}/tokens", found(this::issue));
    router.delete("/v1/principals/{name}/tokens/{token}", found(this::revoke));
    router.post("/v1/principals/{name}/sqs-credentials", found(this::issueSqs));
    router.delete("/v1/principals/{name}/sqs-credentials/{key}", found(this::revokeSqs));
    router.get("/v1/audit", this::audit);
  }

  /** Answers 404 when the path names no principal. */
  private static HttpRouter.Handler found(HttpRouter.Handler handler) {
    return r -> {
      try {
        return handler.handle(r);
      } catch (NoSuchPrincipal e) {
        return HttpResponse.error(404, e.getMessage());
      }
    };
  }

  HttpResponse whoami(HttpRequest r) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("principal", r.caller().principal());
    body.put("auth", mode.name().toLowerCase(java.util.Locale.ROOT));
    body.put("grants", r.caller().grants().stream().map(Grant::toString).toList());
    return HttpResponse.ok(body);
  }

  HttpResponse add(HttpRequest r) {
    JsonNode b = body(r);
    String name = text(b, "name");
    if (principals.get(name).isPresent()) {
      return HttpResponse.error(409, "principal '" + name + "' exists; PUT /v1/principals/" + name
          + " changes its grants");
    }
    List<Grant> grants = grants(b);
    boolean withToken = !b.has("token") || b.get("token").asBoolean(true);
    if (b.has("token") && !b.get("token").isBoolean()) {
      throw new IllegalArgumentException("token must be true or false");
    }
    long now = clock.millis();
    Tokens.Issued issued = withToken ? Tokens.issue(now) : null;
    Principal p = new Principal(name, grants, issued == null ? List.of() : List.of(issued.stored()), now);
    principals.put(p);
    Map<String, Object> body = view(p);
    if (issued != null) {
      body.put("token", issued.text());
    }
    return HttpResponse.json(201, body);
  }

  HttpResponse setGrants(HttpRequest r) {
    Principal p = existing(r);
    JsonNode b = body(r);
    Principal changed = new Principal(p.name(), grants(b), p.tokens(), p.sqsCredentials(), p.createdAt());
    principals.put(changed);
    return HttpResponse.ok(view(changed));
  }

  HttpResponse remove(HttpRequest r) {
    String name = r.pathParam("name");
    if (!principals.remove(name)) {
      return HttpResponse.error(404, "no principal '" + name + "'");
    }
    return HttpResponse.ok(Map.of("removed", name));
  }

  HttpResponse issue(HttpRequest r) {
    Principal p = existing(r);
    Tokens.Issued issued = Tokens.issue(clock.millis());
    List<Tokens.Stored> tokens = new ArrayList<>(p.tokens());
    tokens.add(issued.stored());
    principals.put(new Principal(p.name(), p.grants(), tokens, p.sqsCredentials(), p.createdAt()));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("principal", p.name());
    body.put("id", issued.stored().id());
    body.put("token", issued.text());
    return HttpResponse.json(201, body);
  }

  HttpResponse revoke(HttpRequest r) {
    Principal p = existing(r);
    String id = r.pathParam("token");
    List<Tokens.Stored> kept = p.tokens().stream().filter(t -> !t.id().equals(id)).toList();
    if (kept.size() == p.tokens().size()) {
      return HttpResponse.error(404, "principal '" + p.name() + "' has no token " + id);
    }
    principals.put(new Principal(p.name(), p.grants(), kept, p.sqsCredentials(), p.createdAt()));
    return HttpResponse.ok(Map.of("principal", p.name(), "revoked", id));
  }

  /**
   * A new SQS credential for the principal: the access key id and secret an AWS SDK signs with (AWS
   * Signature Version 4), the secret shown this once.
   */
  HttpResponse issueSqs(HttpRequest r) {
    Principal p = existing(r);
    SqsCredential c = SqsCredential.issue(clock.millis());
    List<SqsCredential> all = new ArrayList<>(p.sqsCredentials());
    all.add(c);
    principals.put(new Principal(p.name(), p.grants(), p.tokens(), all, p.createdAt()));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("principal", p.name());
    body.put("accessKeyId", c.accessKeyId());
    body.put("secretAccessKey", c.secret());
    return HttpResponse.json(201, body);
  }

  HttpResponse revokeSqs(HttpRequest r) {
    Principal p = existing(r);
    String key = r.pathParam("key");
    List<SqsCredential> kept = p.sqsCredentials().stream().filter(c -> !c.accessKeyId().equals(key)).toList();
    if (kept.size() == p.sqsCredentials().size()) {
      return HttpResponse.error(404, "principal '" + p.name() + "' has no SQS credential " + key);
    }
    principals.put(new Principal(p.name(), p.grants(), p.tokens(), kept, p.createdAt()));
    return HttpResponse.ok(Map.of("principal", p.name(), "revoked", key));
  }

  HttpResponse audit(HttpRequest r) {
    int limit = r.queryParam("limit").map(v -> {
      try {
        int n = Integer.parseInt(v);
        if (n < 1 || n > 1000) {
          throw new NumberFormatException();
        }
        return n;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("limit must be 1-1000, got '" + v + "'");
      }
    }).orElse(100);
    List<Map<String, Object>> entries = new ArrayList<>();
    for (AuditLog.Entry e : audit.read(limit, r.queryParam("principal").orElse(null))) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("time", e.time().toString());
      m.put("principal", e.principal());
      m.put("method", e.method());
      m.put("path", e.path());
      m.put("request", e.request());
      m.put("status", e.status());
      m.put("outcome", e.outcome());
      entries.add(m);
    }
    return HttpResponse.ok(Map.of("entries", entries));
  }

  private Principal existing(HttpRequest r) {
    String name = r.pathParam("name");
    Optional<Principal> p = principals.get(name);
    if (p.isEmpty()) {
      throw new NoSuchPrincipal(name);
    }
    return p.get();
  }

  static Map<String, Object> view(Principal p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", p.name());
    m.put("grants", p.grants().stream().map(Grant::toString).toList());
    m.put("tokens", p.tokens().stream().map(t -> Map.of("id", t.id(), "createdAt",
        java.time.Instant.ofEpochMilli(t.createdAt()).toString())).toList());
    m.put("sqsCredentials", p.sqsCredentials().stream().map(c -> Map.of("accessKeyId", c.accessKeyId(), "createdAt",
        java.time.Instant.ofEpochMilli(c.createdAt()).toString())).toList());
    m.put("createdAt", java.time.Instant.ofEpochMilli(p.createdAt()).toString());
    return m;
  }

  private static JsonNode body(HttpRequest r) {
    try {
      JsonNode b = HttpResponse.JSON.readTree(r.body());
      if (b == null || !b.isObject()) {
        throw new IllegalArgumentException("the body must be a JSON object");
      }
      b.fieldNames().forEachRemaining(f -> {
        if (!PRINCIPAL_FIELDS.contains(f)) {
          throw new IllegalArgumentException("unknown field '" + f + "' (known: name, grants, token)");
        }
      });
      return b;
    } catch (IOException e) {
      throw new IllegalArgumentException("request body is not valid JSON: " + e.getMessage());
    }
  }

  private static String text(JsonNode b, String field) {
    JsonNode n = b.get(field);
    if (n == null || !n.isTextual() || n.asText().isBlank()) {
      throw new IllegalArgumentException(field + " is missing (a string)");
    }
    return n.asText();
  }

  private static List<Grant> grants(JsonNode b) {
    JsonNode n = b.get("grants");
    if (n == null || !n.isArray()) {
      throw new IllegalArgumentException("grants is missing: a list such as [\"team-a.*:produce,consume\"]");
    }
    List<Grant> out = new ArrayList<>();
    for (JsonNode g : n) {
      if (!g.isTextual()) {
        throw new IllegalArgumentException("a grant is a string NAMESPACES:PERMISSIONS, got " + g);
      }
      out.add(Grant.parse(g.asText()));
    }
    return out;
  }

  /** 404 for a principal that does not exist (the router answers 400 for IllegalArgumentException). */
  static final class NoSuchPrincipal extends RuntimeException {
    NoSuchPrincipal(String name) {
      super("no principal '" + name + "'", null, false, false);
    }
  }
}
