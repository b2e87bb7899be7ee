package dev.ordo.server.console;

import dev.ordo.api.Names;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.ServerComponent;
import dev.ordo.server.ServerContext;
import dev.ordo.server.StartupException;
import dev.ordo.server.auth.Caller;
import dev.ordo.server.auth.Permission;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.config.AbstractConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console (docs/console.md): static pages served at {@code /} and {@code /console/*}, from
 * this jar's resources, that call the HTTP API from the browser; and the charts' data, sampled from
 * this instance's meters every {@value ConsoleConfig#SAMPLE_INTERVAL_MS_CONFIG} into a
 * {@link MetricSeries}, at {@code GET /v1/console/series} and {@code GET /v1/console/rates}. Needs
 * nothing but the server's meter registry; starts after the HTTP API.
 */
public final class ConsoleComponent implements ServerComponent {
  private static final Logger LOG = LoggerFactory.getLogger(ConsoleComponent.class);
  /** The console's files, under this package's resource directory; nothing else is served. */
  static final Map<String, String> ASSETS = Map.of(
      "index.html", "text/html; charset=utf-8",
      "console.js", "text/javascript; charset=utf-8",
      "console.css", "text/css; charset=utf-8");
  /** A ring this large at most, whatever the settings ask (about 100 bytes a topic a sample). */
  static final int MAX_SAMPLES = 100_000;

  private final LongSupplier clock;
  private ScheduledExecutorService sampler;
  private MetricSeries series;
  private long intervalMs;
  private long historyMs;

  public ConsoleComponent() {
    this(System::currentTimeMillis);
  }

  /** @param clock wall-clock milliseconds, for the samples' times */
  public ConsoleComponent(LongSupplier clock) {
    this.clock = clock;
  }

  @Override
  public String name() {
    return "console";
  }

  @Override
  public void start(ServerContext ctx) {
    AbstractConfig config = new AbstractConfig(ConsoleConfig.CONFIG, ctx.settings().ordo(ConsoleConfig.CONFIG), false);
    intervalMs = config.getLong(ConsoleConfig.SAMPLE_INTERVAL_MS_CONFIG);
    historyMs = config.getLong(ConsoleConfig.HISTORY_MS_CONFIG);
    // One more than the history holds: the oldest point's rate needs the sample before it.
    long capacity = Math.min(MAX_SAMPLES, historyMs / intervalMs + 2);
    series = new MetricSeries((int) capacity);

    Map<String, byte[]> assets = new LinkedHashMap<>();
    ASSETS.keySet().forEach(name -> assets.put(name, resource(name)));
    HttpRouter http = ctx.http();
    http.get("/", r -> asset(assets, "index.html"));
    http.get("/console/{file}", r -> asset(assets, r.pathParam("file")));
    http.get("/v1/console/series", this::series);
    http.get("/v1/console/rates", this::rates);
    MeterRegistry meters = ctx.meters();
    http.get("/v1/console/consumers", r -> consumers(r, meters));

    sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread t = new Thread(runnable, "ordo-console-sampler");
      t.setDaemon(true);
      return t;
    });
    sampler.scheduleAtFixedRate(() -> sample(meters), 0, intervalMs, TimeUnit.MILLISECONDS);
  }

  private void sample(MeterRegistry meters) {
    try {
      series.add(MetricSeries.read(meters, clock.getAsLong()));
    } catch (RuntimeException e) {
      // A failed sample is a gap in the charts, never the end of the sampling.
      LOG.warn("The console could not sample the meters: {}", e.toString());
    }
  }

  private static byte[] resource(String name) {
    try (InputStream in = ConsoleComponent.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new StartupException("the console's file " + name + " is missing from the jar (dev/ordo/server/console/)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new StartupException("cannot read the console's file " + name + ": " + e.getMessage());
    }
  }

  private static HttpResponse asset(Map<String, byte[]> assets, String name) {
    byte[] body = assets.get(name);
    if (body == null) {
      return HttpResponse.error(404, "no such console file: " + name);
    }
    // Revalidated on every load: a server upgraded under an open console serves its new pages.
    return new HttpResponse(200, body, ASSETS.get(name), Map.of("Cache-Control", "no-cache"));
  }

  /**
   * {@code GET /v1/console/series?namespace=&topic=}: the chart of a topic, of a namespace's topics
   * summed, or (no parameters) of every topic, from this instance's meters. A caller sees only the
   * namespaces it may operate: no parameters sum those, another namespace is refused (403).
   */
  HttpResponse series(HttpRequest r) {
    String namespace = r.queryParam("namespace").orElse(null);
    String topic = r.queryParam("topic").orElse(null);
    if (namespace != null) {
      Names.check("namespace", namespace);
    }
    if (topic != null) {
      if (namespace == null) {
        throw new IllegalArgumentException("topic needs a namespace: ?namespace=..&topic=..");
      }
      Names.check("topic", topic);
    }
    Caller caller = r.caller();
    if (namespace != null && !caller.may(Permission.OPERATE, namespace)) {
      return HttpResponse.error(403, caller.missing(Permission.OPERATE, "namespace '" + namespace + "'"));
    }
    List<Map<String, Object>> points = series.points(k -> (namespace == null
        ? caller.may(Permission.OPERATE, k.namespace()) : namespace.equals(k.namespace()))
        && (topic == null || topic.equals(k.topic()))).stream().map(p -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("at", p.atMs());
      m.put("ready", p.ready());
      m.put("delayed", p.delayed());
      m.put("leased", p.leased());
      m.put("parked", p.parked());
      m.put("overflow", p.overflow());
      m.put("oldestReadyAgeMs", p.oldestReadyAgeMs());
      m.put("enqueuePerSec", p.enqueuePerSec());
      m.put("leasePerSec", p.leasePerSec());
      m.put("deadLetterPerSec", p.deadLetterPerSec());
      return m;
    }).toList();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("intervalMs", intervalMs);
    body.put("historyMs", historyMs);
    body.put("namespace", namespace);
    body.put("topic", topic);
    body.put("points", points);
    return HttpResponse.ok(body);
  }

  /**
   * {@code GET /v1/console/rates}: the rates over the last sample interval of every topic in a
   * namespace the caller may operate, from this instance's meters.
   */
  HttpResponse rates(HttpRequest r) {
    List<Map<String, Object>> topics = series.lastRates().stream()
        .filter(rate -> r.caller().may(Permission.OPERATE, rate.topic().namespace())).map(rate -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("namespace", rate.topic().namespace());
      m.put("topic", rate.topic().topic());
      m.put("enqueuePerSec", rate.enqueuePerSec());
      m.put("leasePerSec", rate.leasePerSec());
      m.put("deadLetterPerSec", rate.deadLetterPerSec());
      return m;
    }).toList();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("intervalMs", intervalMs);
    body.put("historyMs", historyMs);
    body.put("topics", topics);
    return HttpResponse.ok(body);
  }

  /**
   * {@code GET /v1/console/consumers?namespace=&topic=}: the spare capacity of the consumer groups
   * that dequeue the topic over this instance's HTTP API (decisions D58), from its meters
   * {@code ordo.consumer.busy.ratio} and {@code ordo.consumer.empty.dequeues}: by group, its busy
   * ratio and its empty dequeues so far.
   */
  static HttpResponse consumers(HttpRequest r, MeterRegistry meters) {
    String namespace = r.queryParam("namespace").orElseThrow(
        () -> new IllegalArgumentException("namespace is missing: ?namespace=..&topic=.."));
    String topic = r.queryParam("topic").orElseThrow(
        () -> new IllegalArgumentException("topic is missing: ?namespace=..&topic=.."));
    Names.check("namespace", namespace);
    Names.check("topic", topic);
    Caller caller = r.caller();
    if (!caller.may(Permission.OPERATE, namespace)) {
      return HttpResponse.error(403, caller.missing(Permission.OPERATE, "namespace '" + namespace + "'"));
    }
    Map<String, Map<String, Object>> groups = new java.util.TreeMap<>();
    for (var gauge : meters.find("ordo.consumer.busy.ratio").tags("namespace", namespace, "topic", topic).gauges()) {
      String group = gauge.getId().getTag("group");
      groups.computeIfAbsent(group, g -> new LinkedHashMap<>(Map.of("group", g))).put("busyRatio", gauge.value());
    }
    for (var counter : meters.find("ordo.consumer.empty.dequeues").tags("namespace", namespace, "topic", topic)
        .functionCounters()) {
      String group = counter.getId().getTag("group");
      groups.computeIfAbsent(group, g -> new LinkedHashMap<>(Map.of("group", g)))
          .put("emptyDequeues", (long) counter.count());
    }
    return HttpResponse.ok(Map.of("namespace", namespace, "topic", topic, "consumers", List.copyOf(groups.values())));
  }

  /** The series the charts read (for tests). */
  MetricSeries metricSeries() {
    return series;
  }

  @Override
  public void close() {
    if (sampler != null) {
      sampler.shutdownNow();
    }
  }
}
