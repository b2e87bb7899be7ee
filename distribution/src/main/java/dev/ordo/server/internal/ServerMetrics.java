package dev.ordo.server.internal;

import dev.ordo.server.HttpResponse;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The server's own meters and {@code GET /metrics} (Prometheus text format): the JVM's, and every
 * HTTP request by method, route and status with a latency histogram. The queue's meters join the
 * same registry from its component ({@code dev.ordo.topology.TopicMeters}, Kafka Streams' metrics).
 */
public final class ServerMetrics {
  /** Prometheus's text exposition format. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  /** Methods with a label of their own; others (any text a client sends) are "other". */
  private static final java.util.Set<String> KNOWN_METHODS = java.util.Set.of("GET", "HEAD", "POST", "PUT", "DELETE");

  private ServerMetrics() {}

  public static void register(PrometheusMeterRegistry registry, RoutingHttpServer http) {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    http.observe((method, route, status, nanos) -> Timer.builder("ordo.http.requests")
        .description("HTTP requests answered, by method, route and status")
        .tags("method", KNOWN_METHODS.contains(method) ? method : "other", "route", route == null ? "unmatched" : route,
            "status", Integer.toString(status))
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofSeconds(30))
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS));
    http.get("/metrics", request -> new HttpResponse(200, registry.scrape().getBytes(StandardCharsets.UTF_8),
        CONTENT_TYPE, Map.of()));
  }
}
