package dev.ordo.server.console;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.server.auth.SecurityConfig;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The web console of a server with {@code ordo.http.auth=token}, in headless Chromium: it asks for
 * a token and refuses a wrong one with the server's reason; signed in, it shows what the principal
 * may operate and nothing of the namespaces it may not (topics, dead letters), and offers only the
 * actions the principal may take (redrive and purge with operate, a policy edit with admin).
 */
@KafkaCluster
class WebConsoleSignInTest {
  private static final String BOOTSTRAP = "console-sign-in-bootstrap-token-0123";

  @TempDir
  static Path tmp;

  private static TestServer server;
  private static HeadlessBrowser browser;
  private static String operatorToken;
  private static String adminToken;
  /** The namespace's dead letter's ID, by namespace. */
  private static final Map<String, String> deadLetters = new java.util.HashMap<>();

  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    server = TestServer.startWithConsole(kafka, "console-auth", tmp.resolve("server"),
        Map.of(SecurityConfig.AUTH, "token", SecurityConfig.BOOTSTRAP_TOKEN, BOOTSTRAP,
            ConsoleConfig.SAMPLE_INTERVAL_MS_CONFIG, "500"));
    operatorToken = principal("shop-operator", "shop:operate");
    adminToken = principal("shop-admin", "shop:admin");
    // Both namespaces hold a ready item and a dead letter: whatever the console leaves out of
    // "other", it had to filter out.
    for (String ns : List.of("shop", "other")) {
      enqueue(ns, "orders", "order of " + ns);
      String item = enqueue(ns, "payments", "payment of " + ns);
      JsonNode leased = await().atMost(HeadlessBrowser.WAIT).until(() -> call("POST", "/v1/namespaces/" + ns
          + "/dequeue", "{\"topics\": {\"payments\": 1}, \"waitMs\": 2000}").json().get("items"), i -> i.size() == 1).get(0);
      assertEquals(item, leased.get("id").asText());
      Reply nack = call("POST", "/v1/items/" + item + "/nack", "{\"lease\": \"" + leased.get("lease").asText()
          + "\", \"deadLetter\": true, \"error\": \"declined\"}");
      assertEquals(200, nack.status(), nack.text());
    }
    await().atMost(HeadlessBrowser.WAIT).until(() -> {
      for (JsonNode d : call("GET", "/v1/dlq", null).json().get("deadLetters")) {
        deadLetters.put(d.get("namespace").asText(), d.get("id").asText());
      }
      List<String> listed = new ArrayList<>();
      call("GET", "/v1/namespaces", null).json().get("namespaces").forEach(n -> listed.add(n.get("namespace").asText()));
      return deadLetters.size() == 2 && listed.containsAll(List.of("shop", "other"));
    });
    browser = HeadlessBrowser.start(tmp.resolve("chromium-profile"));
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Every test starts signed out: the token is kept in the tab's sessionStorage. */
  @BeforeEach
  void signedOut() {
    open("/");
    browser.js("sessionStorage.clear();");
    browser.driver().navigate().refresh();
  }

  @Test
  void theConsoleAsksForATokenAndRefusesAWrongOne() {
    open("/#/topics");
    awaitSignInForm();
    assertEquals(0, browser.count("#topics"), "no page before signing in");
    signIn("ordo_000000000000_not-a-token-of-this-server");
    browser.awaitTextContaining("#signin-message", "Signing in failed: the token is not valid");
    assertEquals(1, browser.count("form#signin"), "the form stays");
    assertEquals(0, browser.count("#topics"));
    assertNull(browser.js("return sessionStorage.getItem('ordo.token');"), "a refused token is not kept");
  }

  @Test
  void anOperatorOfOneNamespaceSeesOnlyItAndNoPolicyEdit() {
    open("/#/topics");
    awaitSignInForm();
    signIn(operatorToken);
    browser.awaitText("#principal", "shop-operator");
    browser.awaitText("tr[data-topic='shop/orders'] td[data-field='ready']", "1");
    assertEquals(0, browser.count("tr[data-namespace='other']"), browser.text("#topics"));
    // The token is kept for the tab: a reload stays signed in.
    browser.driver().navigate().refresh();
    browser.awaitText("#principal", "shop-operator");

    // The dead letters of the namespace it may operate, with redrive and purge; none of the other one.
    open("/#/dlq");
    browser.awaitText("tr[data-dead-letter='" + deadLetters.get("shop") + "'] td[data-field='status']", "DEAD");
    assertEquals(0, browser.count("tr[data-dead-letter='" + deadLetters.get("other") + "']"));
    assertEquals(1, browser.count("#redrive-selected"));
    assertEquals(1, browser.count("#purge-selected"));
    open("/#/dlq?namespace=other");
    browser.awaitTextContaining("#refused", "permission 'operate' on namespace 'other' is required");
    assertEquals(0, browser.count("#redrive-selected") + browser.count("#purge-selected") + browser.count("#dead-letters"));
    open("/#/dlq/" + deadLetters.get("other"));
    browser.awaitTextContaining("#refused", "'operate'");
    assertEquals(0, browser.count("#redrive"));

    // Operate but not admin: the policy shows, with no way to change it.
    open("/#/namespaces/shop");
    browser.awaitText("#namespace", "shop");
    assertEquals(0, browser.count("#policy-edit"));
    assertTrue(browser.text("#policy-readonly").contains("needs admin on shop"), browser.text("main"));

    browser.click(By.id("signout"));
    awaitSignInForm();
    assertNull(browser.js("return sessionStorage.getItem('ordo.token');"), "signing out forgets the token");
  }

  @Test
  void anAdminOfTheNamespaceChangesItsPolicyFromItsPage() {
    open("/#/namespaces/shop");
    awaitSignInForm();
    signIn(adminToken);
    browser.awaitText("#principal", "shop-admin");
    browser.awaitText("#namespace", "shop");
    browser.awaitTextContaining("#dedup-window", "300000 ms (5 minutes, the default)");
    browser.awaitTextContaining("#topic-weights", "Topic weights: none");
    browser.awaitTextContaining("#ordered-groups", "Ordered groups: off");
    browser.awaitTextContaining("#group-rates", "Group rates: none");
    browser.awaitTextContaining("#shards", "Shards: 1: each group key's items on one partition");
    browser.js("document.querySelector('#policy-edit textarea').value = arguments[0];",
        "{\"defaults\": {\"maxAttempts\": 7}, \"dedupWindowMs\": 60000, \"topicWeights\": {\"orders\": 3},"
            + " \"ordered\": true, \"orderedTopics\": {\"audit\": false}, \"groupRate\": {\"perSecond\": 2, \"burst\": 5},"
            + " \"groupRateOverrides\": {\"vip\": {\"perSecond\": 50, \"burst\": 60}}, \"shards\": 2}");
    browser.click(By.id("policy-save"));
    browser.awaitTextContaining("#policy", "\"maxAttempts\": 7");
    browser.awaitTextContaining("#dedup-window", "Deduplication window: 60000 ms");
    browser.awaitTextContaining("#topic-weights", "Topic weights: orders 3 (other topics 1)");
    browser.awaitTextContaining("#ordered-groups", "Ordered groups: on for every topic but audit");
    browser.awaitTextContaining("#group-rates", "Group rates: every group 2/s (burst 5), vip 50/s (burst 60)");
    browser.awaitTextContaining("#shards", "Shards: 2: each group key's items spread over its own 2 partitions");
    Reply policy = call("GET", "/v1/namespaces/shop/policy", null);
    assertEquals(7, policy.json().get("defaults").get("maxAttempts").asInt(), policy.text());
    assertEquals(60_000, policy.json().get("dedupWindowMs").asLong(), policy.text());
    assertEquals(3.0, policy.json().get("topicWeights").get("orders").asDouble(), policy.text());
    assertEquals(2, policy.json().get("shards").asInt(), policy.text());

    open("/#/namespaces/other");
    browser.awaitTextContaining("#refused", "'operate'");
    assertEquals(0, browser.count("#policy-edit"), "no edit of another namespace's policy");
  }

  @Test
  void chartsOfAnOperatorCoverOnlyTheNamespacesItMayOperate() {
    // Both namespaces' ready items are in the samples (the bootstrap admin sees them all)...
    await().atMost(HeadlessBrowser.WAIT).until(() -> lastReady(call("GET", "/v1/console/series", null)) == 2
        && call("GET", "/v1/console/rates", null).text().contains("\"namespace\":\"other\""));
    // ...an operator of shop sees shop's.
    assertEquals(1, lastReady(server.call("GET", "/v1/console/series", null, operatorToken)));
    Reply rates = server.call("GET", "/v1/console/rates", null, operatorToken);
    assertTrue(rates.text().contains("\"namespace\":\"shop\"") && !rates.text().contains("other"), rates.text());
    Reply other = server.call("GET", "/v1/console/series?namespace=other", null, operatorToken);
    assertEquals(403, other.status(), other.text());
  }

  // ---- helpers ----

  private static long lastReady(Reply series) {
    JsonNode points = series.json().get("points");
    return points.isEmpty() ? -1 : points.get(points.size() - 1).get("ready").asLong();
  }

  private static void open(String path) {
    browser.open(server.address() + path);
  }

  private static void awaitSignInForm() {
    browser.awaitTextContaining("form#signin h1", "Sign in");
  }

  private static void signIn(String token) {
    browser.driver().findElement(By.id("token")).sendKeys(token);
    browser.click(By.id("signin-submit"));
  }

  /** A principal with these grants, made with the bootstrap token; its token. */
  private static String principal(String name, String grant) {
    Reply r = call("POST", "/v1/principals", "{\"name\": \"" + name + "\", \"grants\": [\"" + grant + "\"]}");
    assertEquals(201, r.status(), r.text());
    return r.json().get("token").asText();
  }

  private static String enqueue(String ns, String topic, String payload) {
    Reply r = call("POST", "/v1/namespaces/" + ns + "/topics/" + topic + "/items", "{\"payload\": \"" + payload + "\"}");
    assertEquals(201, r.status(), r.text());
    return r.json().get("id").asText();
  }

  /** A call of the HTTP API with the bootstrap token (an admin of every namespace). */
  private static Reply call(String method, String path, String body) {
    return server.call(method, path, body, BOOTSTRAP);
  }
}
