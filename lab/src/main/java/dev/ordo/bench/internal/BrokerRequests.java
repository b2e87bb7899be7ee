package dev.ordo.bench.internal;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The embedded broker's requests by kind since this was made, from its request meters
 * ({@code kafka.network:type=RequestMetrics,name=RequestsPerSec,request=...}): how many produce,
 * fetch, transaction and commit requests an item costs, and how long a request handler spent on
 * each kind ({@code name=LocalTimeMs}: the handler's time, wall-clock, from the histogram's count
 * and mean). A broker in another process (a user's cluster) has no meters in this JVM, and then
 * there is nothing to report.
 */
final class BrokerRequests {
  private static final String METERS = "kafka.network:type=RequestMetrics,name=RequestsPerSec,*";
  private static final String LOCAL_TIMES = "kafka.network:type=RequestMetrics,name=LocalTimeMs,*";

  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  private final Map<String, Long> counts0 = counts();
  private final Map<String, Long> localMicros0 = localMicros();

  /** Each kind of request since this was made, per item of {@code items}, the most frequent first; none below 0.005. */
  Map<String, Double> perItem(long items) {
    return perItem(counts0, counts(), items);
  }

  /**
   * The request handlers' time on each kind of request since this was made, in µs per item of
   * {@code items}, the costliest first; none below 0.005.
   */
  Map<String, Double> handlerMicrosPerItem(long items) {
    return perItem(localMicros0, localMicros(), items);
  }

  static Map<String, Double> perItem(Map<String, Long> before, Map<String, Long> after, long items) {
    Map<String, Double> out = new LinkedHashMap<>();
    after.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / (double) items))
        .filter(e -> e.getValue() >= 0.005)
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }

  /** The meters' counts by the request's name, its versions added up. */
  private Map<String, Long> counts() {
    return byRequest(METERS, false);
  }

  /** The handlers' total time (µs) by the request's name: each histogram's count times its mean. */
  private Map<String, Long> localMicros() {
    return byRequest(LOCAL_TIMES, true);
  }

  private Map<String, Long> byRequest(String pattern, boolean totalMicros) {
    Map<String, Long> out = new HashMap<>();
    try {
      Set<ObjectName> names = server.queryNames(new ObjectName(pattern), null);
      for (ObjectName n : names) {
        String request = n.getKeyProperty("request");
        Object count = server.getAttribute(n, "Count");
        if (request == null || !(count instanceof Number c)) {
          continue;
        }
        long value = c.longValue();
        if (totalMicros) {
          Object mean = server.getAttribute(n, "Mean");
          value = mean instanceof Number m ? Math.round(m.doubleValue() * 1_000 * c.longValue()) : 0;
        }
        out.merge(request, value, Long::sum);
      }
    } catch (Exception e) {
      return Map.of(); // no meters to read: the broker is elsewhere
    }
    return out;
  }
}
