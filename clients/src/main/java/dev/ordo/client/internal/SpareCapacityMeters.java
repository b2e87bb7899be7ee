package dev.ordo.client.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.common.utils.Time;

/** The meters of a {@link dev.ordo.client.LeaseConsumer}'s spare capacity ({@link SpareCapacity}, decisions D58). */
public final class SpareCapacityMeters {
  private SpareCapacityMeters() {}

  /** Registers the empty dequeues and the busy ratio of each topic served, by namespace, topic and group. */
  public static void bind(MeterRegistry registry, SpareCapacity spare, String namespace, String groupId, Time time) {
    for (String topic : spare.topics()) {
      String[] tags = {"namespace", namespace, "topic", topic, "group", groupId};
      FunctionCounter.builder("ordo.consumer.empty.dequeues", spare, SpareCapacity::emptyDequeues)
          .description("Polls that brought no item to an idle consumer (nothing running or waiting), for each topic served")
          .tags(tags).register(registry);
      Gauge.builder("ordo.consumer.busy.ratio", spare, s -> s.busyRatio(topic, time.milliseconds()))
          .description("Fraction of the handler slots' time spent running handlers of the topic's items over"
              + " the recent window (1: saturated, 0: spare capacity)")
          .tags(tags).register(registry);
    }
  }
}
