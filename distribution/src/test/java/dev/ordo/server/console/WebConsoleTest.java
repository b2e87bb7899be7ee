package dev.ordo.server.console;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordo.server.TestServer;
import dev.ordo.server.TestServer.Reply;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real browser: headless Chromium (Debian's {@code chromium} and
 * {@code chromium-driver}, installed by {@code .ci/install-chromium.sh} when missing) driven by
 * Selenium against one {@code ordo server} on a real Kafka cluster. The pages are read as a user
 * sees them: counts that change while the page stays open, a topic's head and charts, an item, the
 * instances and partitions, a dead letter redriven from its page. The endpoints the console reads
 * are checked here too.
 *
 * <p>{@code -Dordo.console.screenshot=docs/console.png} also writes the screenshot of docs/console.md.
 */
@KafkaCluster
class WebConsoleTest {
  private static final Duration WAIT = HeadlessBrowser.WAIT;

  @TempDir
  static Path tmp;

  private static TestServer server;
  private static HeadlessBrowser chromium;
  private static WebDriver browser;

  @BeforeAll
  static void start(RealKafka kafka) throws Exception {
    // Samples every 500 ms for 2 minutes: charts get points within a test's time.
    server = TestServer.startWithConsole(kafka, "console", tmp.resolve("server"), Map.of(
        ConsoleConfig.SAMPLE_INTERVAL_MS_CONFIG, "500", ConsoleConfig.HISTORY_MS_CONFIG, "120000"));
    chromium = HeadlessBrowser.start(tmp.resolve("chromium-profile"));
    browser = chromium.driver();
  }

  @AfterAll
  static void stop() {
    if (chromium != null) {
      chromium.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void topicsPageShowsACountChangeAfterAnEnqueueWithoutReloading() {
    enqueue("web", "mails", "welcome ann", 5);
    open("/#/topics");
    String ready = "tr[data-topic='web/mails'] td[data-field='ready']";
    awaitText(ready, "1");
    enqueue("web", "mails", "welcome bob", 5);
    enqueue("web", "mails", "welcome carl", 5);
    awaitText(ready, "3");
    assertEquals("5", text("tr[data-topic='web/mails'] td[data-field='headPriority']"));
    assertTrue(text("tr[data-namespace='web']").contains("web"), "the namespace's row is shown above its topics");
  }

  @Test
  void topicPageShowsTheHeadInDispatchOrderChartsAndLinksToTheItem() {
    enqueue("shop", "reports", "monthly report", 5);
    String urgent = enqueue("shop", "reports", "urgent report", 1);
    open("/#/topics/shop/reports");
    // The better priority first, though enqueued second.
    awaitText("#head tbody tr:first-child td:first-child", urgent);
    assertEquals(2, count("#head tbody tr"));
    awaitText("#counts [data-field='ready'] .v", "2");
    // The sampler took points of the topic's meters since the enqueue; the chart drew them.
    new WebDriverWait(browser, WAIT).until(d -> Integer.parseInt(String.valueOf(js(
        "const e = document.querySelector(\"#chart-items polyline[data-series='ready']\");"
            + " return e ? e.getAttribute('data-count') : '0';"))) >= 2);

    click(By.linkText(urgent));
    awaitText("#item-id", urgent);
    assertEquals("urgent report", text("#payload"));
    assertEquals("READY", text("#item dd[data-field='state']"));
    assertEquals("1", text("#item dd[data-field='priority']"));
  }

  @Test
  void topicPageShowsTheSpareCapacityOfTheGroupsThatDequeueIt() throws Exception {
    enqueue("farm", "harvest", "one job", 5);
    assertEquals(1, dequeueAs("farm", "harvest", "pickers", 20_000).size(), "the item, held");
    assertEquals(0, dequeueAs("farm", "harvest", "pickers", 500).size(), "an empty dequeue");
    JsonNode listed = server.get("/v1/console/consumers?namespace=farm&topic=harvest").json();
    assertEquals("pickers", listed.get("consumers").get(0).get("group").asText(), listed::toString);
    assertEquals(1, listed.get("consumers").get(0).get("emptyDequeues").asLong(), listed::toString);
    assertEquals(400, server.get("/v1/console/consumers?namespace=farm").status());
    open("/#/topics/farm/harvest");
    awaitText("#consumers tr[data-group='pickers'] td[data-field='emptyDequeues']", "1");
    assertTrue(text("#consumers tr[data-group='pickers'] td[data-field='busyRatio']").endsWith("%"));
  }

  private static JsonNode dequeueAs(String ns, String topic, String group, long waitMs) throws Exception {
    java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.address() + "/v1/namespaces/" + ns + "/dequeue"))
            .header("Content-Type", "application/json").header("X-Ordo-Consumer-Group", group)
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                "{\"topics\": {\"" + topic + "\": 1}, \"waitMs\": " + waitMs + "}"))
            .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).get("items");
  }

  @Test
  void topicPagePausesAndResumesTheTopicWithItsButton() {
    enqueue("ops", "exports", "nightly export", 5);
    open("/#/topics/ops/exports");
    awaitText("#pause-toggle", "Pause");
    click(By.id("pause-toggle"));
    new WebDriverWait(browser, WAIT).until(ExpectedConditions.alertIsPresent()).accept(); // "Pause topic exports?"
    awaitText("#pause-toggle", "Resume");
    assertEquals("true", chromium.js("return document.querySelector('#pause').getAttribute('data-paused');"));
    JsonNode listed = server.get("/v1/namespaces/ops/topics").json().get("topics").get(0);
    assertTrue(listed.get("paused").asBoolean(), listed::toString);
    open("/#/topics");
    awaitText("tr[data-topic='ops/exports'] [data-field='paused']", "paused");

    open("/#/topics/ops/exports");
    awaitText("#pause-toggle", "Resume");
    click(By.id("pause-toggle")); // a resume asks nothing
    awaitText("#pause-toggle", "Pause");
    assertFalse(server.get("/v1/namespaces/ops/topics").json().get("topics").get(0).get("paused").asBoolean());
  }

  @Test
  void itemPageSaysWhenTheQueueNoLongerHoldsTheItem() {
    open("/#/items/3-999999");
    new WebDriverWait(browser, WAIT).until(d -> text("#item-missing") != null
        && text("#item-missing").contains("unknown item"));
  }

  @Test
  void clusterPageListsThisServerAndThePartitionsItRuns() {
    String self = server.address().getHost() + ":" + server.address().getPort();
    open("/#/cluster");
    awaitText("tr[data-instance='" + self + "'] td[data-field='active']", "0, 1, 2, 3");
    assertEquals(4, count("#partitions [data-partition]"));
    for (int p = 0; p < 4; p++) {
      assertTrue(text("#partitions [data-partition='" + p + "']").contains(self), "partition " + p + " runs here");
    }
  }

  @Test
  void deadLetterPageRedrivesASelectedDeadLetterBackIntoTheQueue() {
    Reply enq = server.post("/v1/namespaces/failing/topics/payments/items", Map.of("payload", "charge ann 12 EUR",
        "priority", 2, "headers", Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")));
    assertEquals(201, enq.status(), enq::text);
    String itemId = enq.json().get("id").asText();
    JsonNode leased = dequeueOne("failing", "payments");
    assertEquals(itemId, leased.get("id").asText());
    Reply nack = server.post("/v1/items/" + itemId + "/nack",
        Map.of("lease", leased.get("lease").asText(), "deadLetter", true, "error", "card declined"));
    assertEquals(200, nack.status(), nack::text);
    String deadLetter = await().atMost(WAIT).until(() -> {
      JsonNode list = server.get("/v1/dlq?namespace=failing").json().get("deadLetters");
      return list.size() == 1 ? list.get(0).get("id").asText() : null;
    }, java.util.Objects::nonNull);

    open("/#/dlq?namespace=failing&reason=REJECTED");
    String row = "tr[data-dead-letter='" + deadLetter + "']";
    awaitText(row + " td[data-field='status']", "DEAD");
    assertTrue(text(row).contains("card declined"), "the last error is listed: " + text(row));
    click(By.cssSelector(row + " input[name='select']"));
    click(By.id("redrive-selected"));
    awaitText("#job-status", "DONE");
    assertEquals("1 redriven", text("#job-done"));
    // The list reloads under the job: the dead letter is no longer DEAD, so the default filter hides it.
    new WebDriverWait(browser, WAIT).until(d -> count(row) == 0);

    // The item is back in the queue, as a new item, and the dead letter's page links to it.
    open("/#/dlq/" + deadLetter);
    awaitText("#dead-letter dd[data-field='status']", "REDRIVEN");
    String traceparent = "#headers tr[data-header='traceparent']";
    assertTrue(text(traceparent).contains("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"), text(traceparent));
    String redrivenTo = text("#dead-letter dd[data-field='redrivenTo']");
    click(By.linkText(redrivenTo));
    awaitText("#item-id", redrivenTo);
    assertEquals("charge ann 12 EUR", text("#payload"));
    assertEquals("READY", text("#item dd[data-field='state']"));
    assertEquals("2", text("#item dd[data-field='priority']"));
    assertTrue(text(traceparent).contains("00-0af7651916cd43dd8448eb211c80319c"), "the redriven item has its headers");
    JsonNode back = dequeueOne("failing", "payments");
    assertEquals(redrivenTo, back.get("id").asText());
  }

  @Test
  void namespacesEndpointSumsTheTopicsOfEachNamespace() {
    enqueue("sums", "a", "x", 0);
    enqueue("sums", "a", "y", 0);
    enqueue("sums", "b", "z", 3);
    await().atMost(WAIT).until(() -> {
      JsonNode ns = namespace(server.get("/v1/namespaces?topics=true"), "sums");
      return ns != null && ns.get("ready").asLong() == 3;
    });
    JsonNode ns = namespace(server.get("/v1/namespaces?topics=true"), "sums");
    assertEquals(2, ns.get("topicCount").asInt());
    assertEquals(List.of("a", "b"), List.of(ns.get("topics").get(0).get("topic").asText(),
        ns.get("topics").get(1).get("topic").asText()));
    assertEquals(2, ns.get("topics").get(0).get("ready").asInt());
    JsonNode bare = namespace(server.get("/v1/namespaces"), "sums");
    assertTrue(bare != null && !bare.has("topics"), "topics only when asked for");
    assertEquals(400, server.get("/v1/namespaces?topics=maybe").status());
  }

  @Test
  void seriesEndpointChartsATopicsCountsAndEnqueueRateFromTheInstancesMeters() {
    for (int i = 0; i < 4; i++) {
      enqueue("rated", "jobs", "job " + i, 0);
    }
    await().atMost(WAIT).until(() -> {
      JsonNode points = server.get("/v1/console/series?namespace=rated&topic=jobs").json().get("points");
      double enqueued = 0;
      JsonNode prev = null;
      for (JsonNode p : points) {
        if (prev != null && !p.get("enqueuePerSec").isNull()) {
          enqueued += p.get("enqueuePerSec").asDouble() * (p.get("at").asLong() - prev.get("at").asLong()) / 1000.0;
        }
        prev = p;
      }
      // Rate times interval, summed over the points, is the items enqueued since the first point.
      return points.size() >= 2 && points.get(points.size() - 1).get("ready").asLong() == 4
          && Math.abs(enqueued - 4) < 0.01;
    });
    Reply rates = server.get("/v1/console/rates");
    assertEquals(200, rates.status());
    boolean listed = false;
    for (JsonNode t : rates.json().get("topics")) {
      listed |= t.get("namespace").asText().equals("rated") && t.get("topic").asText().equals("jobs");
    }
    assertTrue(listed, "rates name every topic of the last sample: " + rates.text());
    assertEquals(400, server.get("/v1/console/series?topic=jobs").status(), "a topic needs its namespace");
  }

  @Test
  void consoleFilesAreServedAndNothingElse() {
    Reply index = server.get("/");
    assertEquals(200, index.status());
    assertTrue(index.text().contains("/console/console.js"));
    assertEquals("text/javascript; charset=utf-8", server.get("/console/console.js").header("content-type"));
    assertEquals(404, server.get("/console/..%2FConsoleComponent.class").status());
  }

  /** Fills a few topics with a workload that enqueues and leases, lets the charts fill, and shoots the topics page. */
  @Test
  @EnabledIfSystemProperty(named = "ordo.console.screenshot", matches = ".+")
  void screenshotOfTheTopicsPage() throws Exception {
    String[][] topics = {{"shop", "emails"}, {"shop", "invoices"}, {"shop", "thumbnails"}, {"billing", "charges"}};
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
    int i = 0;
    while (System.nanoTime() < end) {
      String[] t = topics[i % topics.length];
      enqueue(t[0], t[1], "item " + i, i % 10);
      if (i % 3 != 0) {
        server.post("/v1/namespaces/" + t[0] + "/dequeue", Map.of("topics", Map.of(t[1], 1)));
      }
      i++;
    }
    open("/#/topics");
    awaitText("tr[data-topic='billing/charges'] td[data-field='enqueuePerSec']", null);
    Path target = Path.of(System.getProperty("ordo.console.screenshot"));
    Files.write(target, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    byte[] png = Files.readAllBytes(target);
    assertTrue(png.length > 8 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', "a PNG at " + target);
  }

  // ---- helpers ----

  private static String enqueue(String ns, String topic, String payload, int priority) {
    Reply r = server.post("/v1/namespaces/" + ns + "/topics/" + topic + "/items",
        Map.of("payload", payload, "priority", priority));
    assertEquals(201, r.status(), r::text);
    return r.json().get("id").asText();
  }

  /** Leases one item of the topic, long-polling until one comes. */
  private static JsonNode dequeueOne(String ns, String topic) {
    return await().atMost(WAIT).until(() -> {
      Reply r = server.post("/v1/namespaces/" + ns + "/dequeue", Map.of("topics", Map.of(topic, 1), "waitMs", 2000));
      assertEquals(200, r.status(), r::text);
      return r.json().get("items").size() == 1 ? r.json().get("items").get(0) : null;
    }, java.util.Objects::nonNull);
  }

  private static JsonNode namespace(Reply r, String name) {
    assertEquals(200, r.status(), r::text);
    for (JsonNode n : r.json().get("namespaces")) {
      if (n.get("namespace").asText().equals(name)) {
        return n;
      }
    }
    return null;
  }

  private static void open(String path) {
    chromium.open(server.address() + path);
  }

  private static Object js(String script, Object... args) {
    return chromium.js(script, args);
  }

  private static String text(String css) {
    return chromium.text(css);
  }

  private static long count(String css) {
    return chromium.count(css);
  }

  private static void awaitText(String css, String expected) {
    chromium.awaitText(css, expected);
  }

  private static void click(By by) {
    chromium.click(by);
  }
}
