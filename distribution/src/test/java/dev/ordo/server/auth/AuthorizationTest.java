package dev.ordo.server.auth;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may call what, end to end with API tokens (issue 46): every endpoint of a full server called by
 * a principal of each permission, in the namespace concerned and elsewhere, answered 403 exactly
 * where {@link AccessRules} says; no credentials or a bad token 401; a refused request changes
 * nothing; principals survive a restart and reach a second instance; the audit log records admin
 * actions, refused ones too.
 */
class AuthorizationTest {
  private static final String BOOTSTRAP = "bootstrap-token-for-the-test-0123456789";
  private static final String NS = "shop";

  @TempDir
  static Path tmp;

  private static RealKafka kafka;
  private static TestServer server;
  /** Principal name to its token. */
  private static final Map<String, String> tokens = new LinkedHashMap<>();

  @BeforeAll
  static void start() {
    kafka = RealKafka.start(1);
    server = TestServer.startWithConsole(kafka, "authz", tmp.resolve("a"), settings());
    for (Permission p : Permission.values()) {
      tokens.put(p.label() + "-in-shop", addPrincipal(p.label() + "-in-shop", NS + ":" + p.label()));
      tokens.put(p.label() + "-everywhere", addPrincipal(p.label() + "-everywhere", "*:" + p.label()));
      tokens.put(p.label() + "-elsewhere", addPrincipal(p.label() + "-elsewhere", "other.*:" + p.label()));
    }
    // The topic the endpoints name holds items, leased for the whole class (an allowed purge takes no leased
    // item; two, in case one is the "0-0" that the item endpoints name): an allowed pause or purge finds the
    // topic in the topics table at once instead of waiting for it before a 404 (TopicsShowing.topicsShowing).
    for (int i = 0; i < 2; i++) {
      Reply enq = server.call("POST", "/v1/namespaces/" + NS + "/topics/jobs/items",
          "{\"payload\": \"held\", \"leaseMs\": 3600000}", BOOTSTRAP);
      assertEquals(201, enq.status(), enq.text());
    }
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Reply dq = server.call("POST", "/v1/namespaces/" + NS + "/dequeue", "{\"topics\": {\"jobs\": 2}, \"waitMs\": 500}",
          BOOTSTRAP);
      assertEquals(200, dq.status(), dq.text());
      Reply topics = server.call("GET", "/v1/namespaces/" + NS + "/topics", null, BOOTSTRAP);
      long leased = 0;
      for (JsonNode t : topics.json().path("topics")) {
        leased += t.path("topic").asText().equals("jobs") ? t.path("leased").asLong() : 0;
      }
      assertEquals(2, leased, topics.text());
    });
  }

  static Map<String, String> settings() {
    return Map.of(SecurityConfig.AUTH, "token", SecurityConfig.BOOTSTRAP_TOKEN, BOOTSTRAP);
  }

  private static String addPrincipal(String name, String grant) {
    Reply r = server.call("POST", "/v1/principals", "{\"name\": \"" + name + "\", \"grants\": [\"" + grant + "\"]}",
        BOOTSTRAP);
    assertEquals(201, r.status(), r.text());
    return r.json().get("token").asText();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void everyRouteOfTheServerHasARule() {
    TreeSet<String> missing = new TreeSet<>(server.server().routes());
    missing.removeAll(AccessRules.all().keySet());
    assertEquals(new TreeSet<>(), missing, "routes without an access rule (they answer 403 to everyone)");
    TreeSet<String> unused = new TreeSet<>(AccessRules.all().keySet());
    unused.removeAll(server.server().routes());
    assertEquals(new TreeSet<>(), unused, "rules of no route");
  }

  @Test
  void everyEndpointTimesEveryPermissionIsAllowedOrForbiddenAsItsRuleSays() {
    List<String> wrong = new ArrayList<>();
    int checked = 0;
    for (Map.Entry<String, AccessRules.Rule> e : AccessRules.all().entrySet()) {
      String method = e.getKey().substring(0, e.getKey().indexOf(' '));
      String path = concrete(e.getKey().substring(e.getKey().indexOf(' ') + 1));
      Access access = e.getValue().access();
      if (e.getKey().equals("GET /v1/dlq")) {
        // The request names the namespace (?namespace=shop), which the handler checks: as in that namespace.
        access = new Access.InNamespace(access.permission(), "namespace");
      }
      for (Map.Entry<String, String> who : tokens.entrySet()) {
        boolean allowed = allowed(access, who.getKey());
        Reply r = server.call(method, path, method.equals("GET") || method.equals("DELETE") ? null : "{}", who.getValue());
        checked++;
        if (allowed && (r.status() == 403 || r.status() == 401)) {
          wrong.add(e.getKey() + " by " + who.getKey() + ": " + r.status() + " " + r.text());
        } else if (!allowed && (r.status() != 403 || !r.error().contains("'" + access.permission().label() + "'"))) {
          wrong.add(e.getKey() + " by " + who.getKey() + ": expected 403 naming " + access.permission().label()
              + ", got " + r.status() + " " + r.text());
        }
      }
      Reply anonymous = server.call(method, path, null, null);
      boolean open = access instanceof Access.Public;
      if (open == (anonymous.status() == 401)) {
        wrong.add(e.getKey() + " without credentials: " + anonymous.status());
      }
      Reply forged = server.call(method, path, null, "ordo_000000000000_forged");
      if (!open && forged.status() != 401) {
        wrong.add(e.getKey() + " with a forged token: " + forged.status());
      }
    }
    assertEquals(List.of(), wrong);
    assertTrue(checked > 300, "checked " + checked);
  }

  /** What {@link Access} means, written out again for the principals of this test. */
  private static boolean allowed(Access access, String principal) {
    Permission held = Permission.parse(principal.substring(0, principal.indexOf('-')));
    String where = principal.substring(principal.indexOf('-') + 1);
    if (access instanceof Access.Public || access instanceof Access.Authenticated) {
      return true;
    }
    boolean implies = held == Permission.ADMIN || held == access.permission();
    if (access instanceof Access.InNamespace) {
      return implies && !where.equals("elsewhere");
    }
    if (access instanceof Access.Somewhere) {
      return implies;
    }
    return implies && where.equals("everywhere");
  }

  private static String concrete(String pattern) {
    return pattern.replace("{ns}", NS).replace("{topic}", "jobs").replace("{id}", "0-0").replace("{file}", "app.js")
        .replace("{job}", "no-such-job").replace("{name}", "no-such-principal").replace("{token}", "abc").replace("{key}", "abc")
        + (pattern.equals("/v1/dlq") ? "?namespace=" + NS : "");
  }

  @Test
  void aConsumerOfOneNamespaceCannotAckOrCancelAnItemOfAnotherAndNothingChanges() {
    String producer = addPrincipal("producer-a", "team-a.*:produce");
    String consumerA = addPrincipal("consumer-a", "team-a.*:consume");
    String consumerB = addPrincipal("consumer-b", "team-b.*:consume,produce");
    Reply enq = server.call("POST", "/v1/namespaces/team-a.mail/topics/jobs/items", "{\"payload\": \"x\"}", producer);
    assertEquals(201, enq.status(), enq.text());
    Reply refusedEnqueue = server.call("POST", "/v1/namespaces/team-a.mail/topics/jobs/items", "{\"payload\": \"y\"}",
        consumerB);
    assertEquals(403, refusedEnqueue.status());
    Reply dq = server.call("POST", "/v1/namespaces/team-a.mail/dequeue", "{\"topics\": {\"jobs\": 5}, \"waitMs\": 5000}",
        consumerA);
    assertEquals(200, dq.status(), dq.text());
    assertEquals(1, dq.json().get("items").size(), "only the one item: the refused enqueue added nothing");
    JsonNode item = dq.json().get("items").get(0);
    String id = item.get("id").asText();
    String lease = "{\"lease\": \"" + item.get("lease").asText() + "\"}";

    assertEquals(403, server.call("POST", "/v1/namespaces/team-a.mail/dequeue", "{\"topics\": {\"jobs\": 1}}",
        consumerB).status(), "the path's namespace decides a dequeue");
    Reply ack = server.call("POST", "/v1/items/" + id + "/ack", lease, consumerB);
    assertEquals(403, ack.status(), ack.text());
    assertTrue(ack.error().contains("team-a.mail"), ack.error());
    assertEquals(403, server.call("POST", "/v1/items/" + id + "/cancel", null, consumerB).status());
    Reply batch = server.call("POST", "/v1/items/ack", "{\"items\": [{\"id\": \"" + id + "\", \"lease\": \""
        + item.get("lease").asText() + "\"}]}", consumerB);
    assertEquals("FORBIDDEN", batch.json().get("results").get(0).get("result").asText(), batch.text());
    Reply seen = server.call("GET", "/v1/items/" + id, null, BOOTSTRAP);
    assertEquals("LEASED", seen.json().get("state").asText(), "the refused commands left the item leased");
    assertEquals(403, server.call("GET", "/v1/items/" + id, null, consumerB).status(), "look-up: operate");

    assertEquals(200, server.call("POST", "/v1/items/" + id + "/ack", lease, consumerA).status());
  }

  @Test
  void malformedCredentialsAreRefusedAndChangeNothing() {
    long seed = 46;
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    String valid = tokens.get("produce-in-shop");
    List<String> bad = new ArrayList<>(List.of("", " ", "ordo_", "ordo__", "ordo_x_", valid.substring(0, valid.length() - 1),
        valid + "x", valid.toUpperCase(java.util.Locale.ROOT), "ordo_" + "0".repeat(12) + "_" + "A".repeat(43),
        BOOTSTRAP.substring(1), "x".repeat(8000), "ordo_%00_%01", "Basic dXNlcjpwYXNz"));
    for (int i = 0; i < 40; i++) {
      StringBuilder b = new StringBuilder("ordo_");
      int n = random.nextInt(1, 80);
      for (int k = 0; k < n; k++) {
        b.append((char) random.nextInt(0x21, 0x7f));
      }
      bad.add(b.toString());
    }
    for (String token : bad) {
      Reply r = server.call("POST", "/v1/namespaces/fuzz-auth/topics/t/items", "{\"payload\": \"x\"}", token);
      assertTrue(r.status() == 401 || r.status() == 400 || r.status() == 431, "seed " + seed + ", token '"
          + token.substring(0, Math.min(40, token.length())) + "': " + r.status() + " " + r.text());
    }
    Reply all = server.call("GET", "/v1/namespaces", null, BOOTSTRAP);
    assertFalse(all.text().contains("fuzz-auth"), "nothing was enqueued: " + all.text());
  }

  @Test
  void listsShowOnlyWhatTheCallerMayOperate() {
    String producer = addPrincipal("lists-producer", "*:produce");
    String operator = addPrincipal("lists-operator", "seen:operate");
    for (String ns : List.of("seen", "unseen")) {
      assertEquals(201, server.call("POST", "/v1/namespaces/" + ns + "/topics/t/items", "{\"payload\": \"p\"}",
          producer).status());
    }
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Reply all = server.call("GET", "/v1/namespaces", null, BOOTSTRAP);
      assertTrue(all.text().contains("\"unseen\""), all.text());
    });
    Reply mine = server.call("GET", "/v1/namespaces", null, operator);
    assertTrue(mine.text().contains("\"seen\""), mine.text());
    assertFalse(mine.text().contains("\"unseen\""), mine.text());
    Reply dlqAll = server.call("GET", "/v1/dlq", null, operator);
    assertEquals(403, dlqAll.status(), "dead letters of every namespace share a topic: name one");
    assertEquals(200, server.call("GET", "/v1/dlq?namespace=seen", null, operator).status());
  }

  @Test
  void tokensAreShownOnceRevocableAndPrincipalsReachASecondInstanceAndSurviveARestart() throws Exception {
    Reply made = server.call("POST", "/v1/principals", "{\"name\": \"roaming\", \"grants\": [\"r:consume\"]}", BOOTSTRAP);
    String token = made.json().get("token").asText();
    Reply listed = server.call("GET", "/v1/principals/roaming", null, BOOTSTRAP);
    assertFalse(listed.text().contains(token.substring(token.lastIndexOf('_') + 1)), "no secret is ever shown again");
    String tokenId = listed.json().get("tokens").get(0).get("id").asText();

    try (TestServer second = TestServer.startWithSettings(kafka, "authz", tmp.resolve("b"), settings())) {
      assertEquals("roaming", second.call("GET", "/v1/whoami", null, token).json().get("principal").asText());
      Reply another = second.call("POST", "/v1/principals/roaming/tokens", null, BOOTSTRAP);
      assertEquals(201, another.status(), another.text());
      String second2 = another.json().get("token").asText();
      await().atMost(Duration.ofSeconds(10)).until(() ->
          server.call("GET", "/v1/whoami", null, second2).status() == 200);
      assertEquals(200, second.call("DELETE", "/v1/principals/roaming/tokens/" + tokenId, null, BOOTSTRAP).status());
      await().atMost(Duration.ofSeconds(10)).until(() ->
          server.call("GET", "/v1/whoami", null, token).status() == 401);
    }
    try (TestServer restarted = TestServer.startWithSettings(kafka, "authz", tmp.resolve("c"), settings())) {
      assertEquals(401, restarted.call("GET", "/v1/whoami", null, token).status(), "revoked stays revoked");
      assertEquals(200, restarted.call("GET", "/v1/whoami", null, tokens.get("consume-in-shop")).status(),
          "read back from the topic");
    }
  }

  @Test
  void theAuditLogRecordsAdminActionsAndRefusedAttempts() {
    String admin = addPrincipal("shop-admin", NS + ":admin");
    String consumer = tokens.get("consume-in-shop");
    assertEquals(200, server.call("PUT", "/v1/namespaces/" + NS + "/policy", "{\"defaults\": {\"maxAttempts\": 3}}", admin).status());
    assertEquals(403, server.call("DELETE", "/v1/namespaces/" + NS + "/policy", null, consumer).status());
    assertEquals(403, server.call("GET", "/v1/audit", null, admin).status(), "the audit log: admin on *");
    Reply audit = server.call("GET", "/v1/audit?limit=1000", null, BOOTSTRAP);
    assertEquals(200, audit.status());
    boolean put = false;
    boolean refused = false;
    for (JsonNode e : audit.json().get("entries")) {
      put |= e.get("principal").asText().equals("shop-admin") && e.get("method").asText().equals("PUT")
          && e.get("status").asInt() == 200 && e.get("request").asText().contains("maxAttempts");
      refused |= e.get("principal").asText().equals("consume-in-shop") && e.get("status").asInt() == 403;
    }
    assertTrue(put && refused, audit.text());
    assertNotEquals(0, audit.json().get("entries").size());
  }
}
