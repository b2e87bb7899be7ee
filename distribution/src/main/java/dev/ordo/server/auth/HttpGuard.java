package dev.ordo.server.auth;

import dev.ordo.api.NamespacePattern;
import dev.ordo.server.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Who sent a request and whether they may: authentication by {@code ordo.http.auth} (none, an API
 * token, a client certificate), then the endpoint's rule in {@link AccessRules}, before the body is
 * read; and the audit record of the endpoints that keep one. Refusals: 401 without valid
 * credentials, 403 naming the missing permission, 503 while the principals are not read yet.
 */
public final class HttpGuard {
  /** The principal of the bootstrap token. */
  public static final String BOOTSTRAP_ADMIN = "bootstrap-admin";

  /** What the guard decided: the caller, or the answer to give instead; whether the call is audited. */
  public record Admission(Caller caller, HttpResponse refusal, boolean audited) {
    public boolean refused() {
      return refusal != null;
    }
  }

  private final SecurityConfig.Mode mode;
  private final boolean metricsPublic;
  private final Tokens.Stored bootstrap;
  private final Clock clock;
  private volatile PrincipalStore principals;
  private volatile AuditLog audit;

  public HttpGuard(SecurityConfig config, Clock clock) {
    this.mode = config.mode();
    this.metricsPublic = config.metricsPublic();
    this.bootstrap = config.bootstrapToken().map(t -> Tokens.hash("bootstrap", t, 0)).orElse(null);
    this.clock = clock;
  }

  public SecurityConfig.Mode mode() {
    return mode;
  }

  /** Once the principals are read (and the audit log can be written): requests are served from then on. */
  public void ready(PrincipalStore principals, AuditLog audit) {
    this.audit = audit;
    this.principals = principals;
  }

  /** {@link #admit(String, String, AccessRules.Rule, Map, Map, SSLSession)} with the rule of {@link AccessRules}. */
  public Admission admit(String method, String route, Map<String, String> params, Map<String, List<String>> headers,
      SSLSession tls) {
    return admit(method, route, AccessRules.of(method, route).orElse(null), params, headers, tls);
  }

  /**
   * Decides on a request to {@code method} {@code route} (the route's pattern) under {@code rule}
   * (null: the route has none, and is refused); its path parameters; {@code headers} with lower-case
   * names; {@code tls} the connection's session, or null.
   */
  public Admission admit(String method, String route, AccessRules.Rule rule, Map<String, String> params,
      Map<String, List<String>> headers, SSLSession tls) {
    if (rule == null) {
      return refuse(403, "no access rule for " + method + " " + route + " (refused: every endpoint needs one)", false);
    }
    Access access = rule.access();
    if (mode == SecurityConfig.Mode.NONE) {
      return new Admission(Caller.ANONYMOUS, null, rule.audited());
    }
    if (access instanceof Access.Public || (metricsPublic && route.equals("/metrics"))) {
      return new Admission(new Caller("anonymous", List.of()), null, false);
    }
    Caller caller;
    try {
      caller = authenticate(headers, tls);
    } catch (Refusal r) {
      return new Admission(null, r.response, rule.audited());
    }
    String missing = missing(access, caller, params);
    if (missing != null) {
      return new Admission(caller, HttpResponse.error(403, missing), rule.audited());
    }
    return new Admission(caller, null, rule.audited());
  }

  /** Null when {@code caller} may, else the 403's message. */
  static String missing(Access access, Caller caller, Map<String, String> params) {
    if (access instanceof Access.InNamespace n) {
      String ns = params.get(n.param());
      return caller.may(n.permission(), ns) ? null : caller.missing(n.permission(), "namespace '" + ns + "'");
    }
    if (access instanceof Access.Somewhere s) {
      return caller.mayAnywhere(s.permission()) ? null : caller.missing(s.permission(), "some namespace");
    }
    if (access instanceof Access.Everywhere e) {
      return caller.mayEverywhere(e.permission()) ? null
          : caller.missing(e.permission(), "every namespace ('" + NamespacePattern.ANY + "')");
    }
    return null;
  }

  private Caller authenticate(Map<String, List<String>> headers, SSLSession tls) throws Refusal {
    PrincipalStore store = principals;
    if (store == null) {
      throw new Refusal(HttpResponse.error(503, "the server is starting: principals are not read yet")
          .withHeader("Retry-After", "1"));
    }
    Optional<String> token = bearer(headers);
    if (token.isPresent() && bootstrap != null && Tokens.matches(bootstrap, token.get())) {
      return new Caller(BOOTSTRAP_ADMIN, List.of(new Grant(NamespacePattern.ANY, EnumSet.of(Permission.ADMIN))));
    }
    if (mode == SecurityConfig.Mode.MTLS) {
      String subject = subject(tls);
      if (subject == null) {
        throw new Refusal(unauthorized("a client certificate is required (ordo.http.auth=mtls)"));
      }
      return store.get(subject).map(Principal::caller).orElseGet(() -> new Caller(subject, List.of()));
    }
    if (token.isEmpty()) {
      throw new Refusal(unauthorized("credentials are required: send 'Authorization: Bearer <token>'"));
    }
    return store.authenticate(token.get()).map(Principal::caller)
        .orElseThrow(() -> new Refusal(unauthorized("the token is not valid (unknown, revoked or mistyped)")));
  }

  static Optional<String> bearer(Map<String, List<String>> headers) {
    List<String> values = headers.get("authorization");
    if (values == null || values.isEmpty()) {
      return Optional.empty();
    }
    String v = values.get(0).trim();
    if (v.length() > 7 && v.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
      return Optional.of(v.substring(7).trim());
    }
    return Optional.empty();
  }

  /** The client certificate's subject (RFC 2253), or null without one. */
  static String subject(SSLSession tls) {
    if (tls == null) {
      return null;
    }
    try {
      Certificate[] chain = tls.getPeerCertificates();
      if (chain.length > 0 && chain[0] instanceof X509Certificate x) {
        return x.getSubjectX500Principal().getName();
      }
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
    return null;
  }

  private static HttpResponse unauthorized(String why) {
    return HttpResponse.error(401, why).withHeader("WWW-Authenticate", "Bearer realm=\"ordo\"");
  }

  private static Admission refuse(int status, String why, boolean audited) {
    return new Admission(null, HttpResponse.error(status, why), audited);
  }

  /** Writes the audit record of an audited call, answered or refused. */
  public void answered(Admission admission, String method, String path, byte[] body, HttpResponse response) {
    AuditLog log = audit;
    if (!admission.audited() || log == null) {
      return;
    }
    String principal = admission.caller() == null ? "unauthenticated" : admission.caller().principal();
    String request = body == null || body.length == 0 ? null : new String(body, StandardCharsets.UTF_8);
    String outcome = response.status() < 300 ? "done" : String.valueOf(errorOf(response));
    log.record(clock.instant(), principal, method, path, request, response.status(), outcome);
  }

  private static Object errorOf(HttpResponse response) {
    return response.body() instanceof Map<?, ?> m && m.get("error") != null ? m.get("error") : "status " + response.status();
  }

  private static final class Refusal extends Exception {
    final HttpResponse response;

    Refusal(HttpResponse response) {
      super(null, null, false, false);
      this.response = response;
    }
  }
}
