package dev.ordo.server.http.internal;

import dev.ordo.client.QueueItem;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.common.utils.Time;

/**
 * The thin layer over {@link HttpConsumers}: tells it what the HTTP API did, at the clock's now, and
 * exports {@code ordo_consumer_empty_dequeues_total} and {@code ordo_consumer_busy_ratio} by namespace,
 * topic and group (decisions D58).
 */
public final class HttpConsumerMeters {
  /** The header a worker names its consumer group with; without it, the caller's principal. */
  public static final String GROUP_HEADER = "x-ordo-consumer-group";

  private static final java.util.regex.Pattern GROUP_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private final HttpConsumers consumers;
  private final MeterRegistry registry;
  private final Time time;

  public HttpConsumerMeters(long busyWindowMs, MeterRegistry registry, Time time) {
    this.consumers = new HttpConsumers(busyWindowMs);
    this.registry = registry;
    this.time = time;
  }

  /**
   * True for a group name the metrics take: 1 to 64 letters, digits, '.', '_' or '-' (a principal's name
   * is one). Every group is a series of its own, so a caller cannot make it arbitrary text.
   */
  public static boolean isGroupName(String group) {
    return group != null && GROUP_NAME.matcher(group).matches();
  }

  public void dequeueStarted(String namespace, Collection<String> topics, String group) {
    for (HttpConsumers.Key key : consumers.dequeueStarted(namespace, topics, group, time.milliseconds())) {
      String[] tags = {"namespace", key.namespace(), "topic", key.topic(), "group", key.group()};
      FunctionCounter.builder("ordo.consumer.empty.dequeues", consumers, c -> c.emptyDequeues(key))
          .description("Dequeues that ended with no item after their wait, by namespace, topic and consumer group")
          .tags(tags).register(registry);
      Gauge.builder("ordo.consumer.busy.ratio", consumers, c -> c.busyRatio(key, time.milliseconds()))
          .description("Fraction of the recent window the consumer group held items with none of its workers"
              + " waiting for more (1: saturated, 0: spare capacity)")
          .tags(tags).register(registry);
    }
  }

  public void dequeueEnded(String namespace, Collection<String> topics, String group, List<QueueItem> items) {
    consumers.dequeueEnded(namespace, topics, group, items.stream()
        .map(i -> new HttpConsumers.HandedOut(i.id().toString(), i.topic(), i.leaseId(),
            i.leaseExpiresAt().toEpochMilli()))
        .toList(), time.milliseconds());
  }

  public void settled(String itemId, String leaseId) {
    consumers.settled(itemId, leaseId, time.milliseconds());
  }

  /** The item's lease now ends at {@code expiresAt} (epoch ms, the queue's answer to an extend). */
  public void extended(String itemId, String leaseId, long expiresAt) {
    consumers.extended(itemId, leaseId, expiresAt, time.milliseconds());
  }
}
