package dev.ordo.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.NamespacePattern;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure parts of authorization: patterns, grants, callers, tokens, the guard's decisions, the docs' table. */
class HttpGuardTest {
  @Test
  void patternsMatchANamespaceAPrefixOrEverything() {
    assertTrue(NamespacePattern.matches("*", "anything"));
    assertTrue(NamespacePattern.matches("team-a.*", "team-a.billing"));
    assertFalse(NamespacePattern.matches("team-a.*", "team-a"), "a prefix pattern needs the prefix whole");
    assertFalse(NamespacePattern.matches("team-a.*", "team-ab.x"));
    assertTrue(NamespacePattern.matches("shop", "shop"));
    assertFalse(NamespacePattern.matches("shop", "shops"));
    assertEquals("namespace pattern 'a*b' has a '*' before its end", NamespacePattern.problem("a*b"));
  }

  @Test
  void grantsParseAndAdminImpliesTheOthersInItsNamespacesOnly() {
    Caller c = new Caller("x", Grant.parseAll(List.of("team-a.*:admin", "shop:consume")));
    assertTrue(c.may(Permission.PRODUCE, "team-a.mail"));
    assertTrue(c.may(Permission.OPERATE, "team-a.mail"));
    assertFalse(c.may(Permission.PRODUCE, "shop"));
    assertTrue(c.may(Permission.CONSUME, "shop"));
    assertFalse(c.mayEverywhere(Permission.ADMIN));
    assertEquals(List.of("team-a.*", "shop"), c.scope(Permission.CONSUME));
    assertNull(Caller.ANONYMOUS.scope(Permission.CONSUME), "everywhere: no scope on commands");
    assertThrows(IllegalArgumentException.class, () -> Grant.parse("shop"));
    assertThrows(IllegalArgumentException.class, () -> Grant.parse("shop:read"));
    assertEquals("shop:produce,consume", Grant.parse("shop: consume, produce ").toString());
  }

  @Test
  void aTokenMatchesOnlyItsOwnSecret() {
    Tokens.Issued t = Tokens.issue(1);
    Tokens.Presented p = Tokens.parse(t.text()).orElseThrow();
    assertEquals(t.stored().id(), p.id());
    assertTrue(Tokens.matches(t.stored(), p.secret()));
    assertFalse(Tokens.matches(t.stored(), p.secret() + "x"));
    assertFalse(Tokens.matches(Tokens.issue(1).stored(), p.secret()), "another token's salt and hash");
    assertTrue(Tokens.parse("Bearer abc").isEmpty());
  }

  @Test
  void aRouteWithoutARuleIsRefusedToEveryoneAndAuthNoneAdmitsAnyoneElse() {
    HttpGuard none = new HttpGuard(new SecurityConfig(Map.of()), Clock.systemUTC());
    assertEquals(403, none.admit("GET", "/v1/secret", Map.of(), Map.of(), null).refusal().status());
    HttpGuard.Admission a = none.admit("POST", "/v1/namespaces/{ns}/dequeue", Map.of("ns", "shop"), Map.of(), null);
    assertSame(Caller.ANONYMOUS, a.caller());

    HttpGuard tokens = new HttpGuard(new SecurityConfig(Map.of(SecurityConfig.AUTH, "token")), Clock.systemUTC());
    assertEquals(503, tokens.admit("GET", "/v1/namespaces", Map.of(), Map.of(), null).refusal().status(),
        "principals not read yet");
    assertFalse(tokens.admit("GET", "/health", Map.of(), Map.of(), null).refused(), "public");
  }

  @Test
  void theBootstrapTokenIsHiddenInTheSettingsLog() {
    dev.ordo.server.ServerSettings s = dev.ordo.server.ServerSettings.of(
        Map.of(SecurityConfig.BOOTSTRAP_TOKEN, "a-secret-of-sixteen-or-more"), "the test");
    assertEquals("[hidden]", s.describe().get(SecurityConfig.BOOTSTRAP_TOKEN));
    assertFalse(s.effective().toString().contains("a-secret"), s.effective().toString());
  }

  @Test
  void theBootstrapTokenMustBeLongEnough() {
    SecurityConfig shortToken = new SecurityConfig(Map.of(SecurityConfig.BOOTSTRAP_TOKEN, "short"));
    assertThrows(org.apache.kafka.common.config.ConfigException.class, shortToken::bootstrapToken);
  }

  @Test
  void securityMdListsEveryEndpointsRule() throws Exception {
    Path doc = docs().resolve("security.md");
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    String begin = "<!-- access rules: generated from AccessRules.markdown(); HttpGuardTest keeps it true -->\n";
    String end = "<!-- end of access rules -->";
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    assertTrue(from >= 0 && to > from, "docs/security.md has the generated table between its markers");
    assertEquals(AccessRules.markdown(), text.substring(from + begin.length(), to),
        "docs/security.md's table differs from AccessRules: paste AccessRules.markdown() between the markers");
  }

  @Test
  void securityMdListsWhatEverySqsActionNeeds() throws Exception {
    String text = Files.readString(docs().resolve("security.md"), StandardCharsets.UTF_8);
    String begin = "<!-- sqs access: generated from SqsAccess.markdown(); HttpGuardTest keeps it true -->\n";
    int from = text.indexOf(begin);
    int to = text.indexOf("<!-- end of sqs access -->");
    assertTrue(from >= 0 && to > from, "docs/security.md has the SQS table between its markers");
    assertEquals(dev.ordo.server.sqs.SqsAccess.markdown(), text.substring(from + begin.length(), to),
        "docs/security.md's SQS table differs from SqsAccess: paste SqsAccess.markdown() between the markers");
  }

  static Path docs() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("docs"))) {
      dir = dir.getParent();
    }
    return dir.resolve("docs");
  }
}
