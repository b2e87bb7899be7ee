package dev.ordo.server.auth;

import static dev.ordo.server.auth.Permission.ADMIN;
import static dev.ordo.server.auth.Permission.CONSUME;
import static dev.ordo.server.auth.Permission.OPERATE;
import static dev.ordo.server.auth.Permission.PRODUCE;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Every endpoint of the server and who may call it, in one table: the HTTP guard answers 403 for a
 * route not listed here (fail closed), docs/security.md prints this table, and AuthorizationTest
 * calls every row with every permission.
 */
public final class AccessRules {
  /** One endpoint: its access and whether a call is written to the audit log. */
  public record Rule(Access access, boolean audited) {}

  private static final Map<String, Rule> RULES = new LinkedHashMap<>();

  static {
    open("GET /health");
    open("GET /");
    open("GET /console/{file}");
    rule("GET /metrics", new Access.Somewhere(OPERATE), false); // public with ordo.metrics.public=true
    rule("GET /v1/whoami", new Access.Authenticated(), false);

    rule("POST /v1/namespaces/{ns}/topics/{topic}/items", ns(PRODUCE), false);
    rule("POST /v1/namespaces/{ns}/items", ns(PRODUCE), false);
    rule("POST /v1/schedule", new Access.Everywhere(PRODUCE), false);

    rule("POST /v1/namespaces/{ns}/dequeue", ns(CONSUME), false);
    for (String command : new String[] {"ack", "nack", "extend", "release", "cancel"}) {
      rule("POST /v1/items/{id}/" + command, new Access.Somewhere(CONSUME), false);
    }
    rule("DELETE /v1/items/{id}", new Access.Somewhere(CONSUME), false);
    for (String command : new String[] {"ack", "nack", "extend", "release"}) {
      rule("POST /v1/items/" + command, new Access.Somewhere(CONSUME), false);
    }

    rule("GET /v1/namespaces", new Access.Somewhere(OPERATE), false);
    rule("GET /v1/namespaces/{ns}/topics", ns(OPERATE), false);
    rule("GET /v1/namespaces/{ns}/topics/{topic}/peek", ns(OPERATE), false);
    rule("GET /v1/items/{id}", new Access.Somewhere(OPERATE), false);
    rule("GET /v1/cluster", new Access.Somewhere(OPERATE), false);
    rule("GET /v1/console/series", new Access.Somewhere(OPERATE), false);
    rule("GET /v1/console/rates", new Access.Somewhere(OPERATE), false);
    rule("GET /v1/console/consumers", new Access.Somewhere(OPERATE), false);
    rule("GET /v1/dlq", new Access.Somewhere(OPERATE), false);
    rule("GET /v1/dlq/{id}", new Access.Somewhere(OPERATE), false);
    rule("POST /v1/dlq/redrive", new Access.Somewhere(OPERATE), true);
    rule("POST /v1/dlq/purge", new Access.Somewhere(OPERATE), true);
    rule("GET /v1/dlq/redrives/{job}", new Access.Somewhere(OPERATE), false);
    rule("GET /v1/dlq/purges/{job}", new Access.Somewhere(OPERATE), false);
    rule("POST /v1/dlq/redrives/{job}/cancel", new Access.Somewhere(OPERATE), true);
    rule("POST /v1/dlq/purges/{job}/cancel", new Access.Somewhere(OPERATE), true);

    rule("POST /v1/namespaces/{ns}/pause", ns(OPERATE), true);
    rule("POST /v1/namespaces/{ns}/resume", ns(OPERATE), true);
    rule("POST /v1/namespaces/{ns}/topics/{topic}/pause", ns(OPERATE), true);
    rule("POST /v1/namespaces/{ns}/topics/{topic}/resume", ns(OPERATE), true);

    rule("POST /v1/namespaces/{ns}/topics/{topic}/purge", ns(OPERATE), true);
    rule("GET /v1/namespaces/{ns}/topics/{topic}/purges/{job}", ns(OPERATE), false);

    rule("GET /v1/namespaces/{ns}/policy", ns(OPERATE), false);
    rule("PUT /v1/namespaces/{ns}/policy", ns(ADMIN), true);
    rule("DELETE /v1/namespaces/{ns}/policy", ns(ADMIN), true);
    rule("GET /v1/principals", new Access.Everywhere(ADMIN), false);
    rule("POST /v1/principals", new Access.Everywhere(ADMIN), true);
    rule("GET /v1/principals/{name}", new Access.Everywhere(ADMIN), false);
    rule("PUT /v1/principals/{name}", new Access.Everywhere(ADMIN), true);
    rule("DELETE /v1/principals/{name}", new Access.Everywhere(ADMIN), true);
    rule("POST /v1/principals/{name}/tokens", new Access.Everywhere(ADMIN), true);
    rule("DELETE /v1/principals/{name}/tokens/{token}", new Access.Everywhere(ADMIN), true);
    rule("POST /v1/principals/{name}/sqs-credentials", new Access.Everywhere(ADMIN), true);
    rule("DELETE /v1/principals/{name}/sqs-credentials/{key}", new Access.Everywhere(ADMIN), true);
    rule("GET /v1/audit", new Access.Everywhere(ADMIN), false);
  }

  private AccessRules() {}

  private static Access ns(Permission p) {
    return new Access.InNamespace(p, "ns");
  }

  private static void open(String route) {
    rule(route, new Access.Public(), false);
  }

  private static void rule(String route, Access access, boolean audited) {
    if (RULES.put(route, new Rule(access, audited)) != null) {
      throw new IllegalStateException("two rules for " + route);
    }
  }

  /** The rule of {@code method} on the route {@code pattern} (as registered, e.g. {@code /v1/items/{id}}). */
  public static Optional<Rule> of(String method, String pattern) {
    return Optional.ofNullable(RULES.get(method + " " + pattern));
  }

  /** Every rule, by {@code "METHOD pattern"}, in the order of docs/security.md. */
  public static Map<String, Rule> all() {
    return Collections.unmodifiableMap(RULES);
  }

  /** The table of docs/security.md: endpoint, permission, audited. */
  public static String markdown() {
    StringBuilder b = new StringBuilder("| endpoint | who may call it | audited |\n| --- | --- | --- |\n");
    RULES.forEach((route, rule) -> b.append("| `").append(route).append("` | ").append(describe(rule.access()))
        .append(" | ").append(rule.audited() ? "yes" : "").append(" |\n"));
    return b.toString();
  }

  static String describe(Access a) {
    if (a instanceof Access.Public) {
      return "anyone";
    }
    if (a instanceof Access.Authenticated) {
      return "any principal";
    }
    if (a instanceof Access.InNamespace n) {
      return "`" + n.permission().label() + "` on `{" + n.param() + "}`";
    }
    if (a instanceof Access.Somewhere s) {
      return "`" + s.permission().label() + "` on some namespace (an item's or a list's: the ones concerned)";
    }
    return "`" + a.permission().label() + "` on `*`";
  }
}
