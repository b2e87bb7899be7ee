package dev.ordo.bench.internal;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The requests this process's Kafka clients sent since this was made, by kind of client: each
 * producer's requests ({@code producer-metrics}' {@code request-total}) and each consumer's fetches
 * ({@code consumer-fetch-manager-metrics}' {@code fetch-total}), a client's id with its numbers and
 * ids taken out ({@link ThreadKinds#kind}) so that the queue's stream threads, the lease consumers
 * or the enqueuer each add up. Whose requests the broker handles, beside {@link BrokerRequests}.
 */
final class ClientRequests {
  private static final String PRODUCERS = "kafka.producer:type=producer-metrics,client-id=*";
  private static final String FETCHERS = "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=*";

  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  private final Map<String, Long> counts0 = counts();

  /** Each kind of client's requests since this was made, per item of {@code items}, the most first; none below 0.005. */
  Map<String, Double> perItem(long items) {
    return BrokerRequests.perItem(counts0, counts(), items);
  }

  private Map<String, Long> counts() {
    Map<String, Long> out = new HashMap<>();
    add(out, PRODUCERS, "request-total", "produce ");
    add(out, FETCHERS, "fetch-total", "fetch ");
    return out;
  }

  private void add(Map<String, Long> out, String pattern, String attribute, String prefix) {
    try {
      for (ObjectName n : server.queryNames(new ObjectName(pattern), null)) {
        Object v = server.getAttribute(n, attribute);
        if (v instanceof Number count) {
          out.merge(prefix + ThreadKinds.kind(n.getKeyProperty("client-id")), Math.round(count.doubleValue()), Long::sum);
        }
      }
    } catch (Exception e) {
      // a client closed meanwhile, or no such metrics: what was read stands
    }
  }
}
