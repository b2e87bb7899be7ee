package dev.ordo.client.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.common.utils.Time;

/**
 * The meters of a {@link dev.ordo.client.QueueClient}'s dequeue breakers ({@link PartitionBreakers}), per
 * queue partition.
 */
public final class BreakerMeters {
  private BreakerMeters() {}

  /** Registers the state, time in state, opens and probes of each of {@code partitions} breakers. */
  public static void bind(MeterRegistry registry, PartitionBreakers breakers, int partitions, String clientId,
      Time time) {
    for (int p = 0; p < partitions; p++) {
      int partition = p;
      String[] tags = {"client", clientId, "partition", Integer.toString(p)};
      Gauge.builder("ordo.client.partition.breaker.state", breakers, b -> b.state(partition).code)
          .description("The dequeue breaker of a queue partition: 0 closed (asked), 1 open (left out: it did not"
              + " answer), 2 half-open (probed)")
          .tags(tags).register(registry);
      Gauge.builder("ordo.client.partition.breaker.state.seconds", breakers,
              b -> b.inStateMs(partition, time.milliseconds()) / 1000.0)
          .description("How long the partition's dequeue breaker has been in its state (0: never opened)")
          .tags(tags).register(registry);
      FunctionCounter.builder("ordo.client.partition.breaker.opens", breakers, b -> b.opens(partition))
          .description("Times the partition's dequeue breaker opened: its answers timed out")
          .tags(tags).register(registry);
      FunctionCounter.builder("ordo.client.partition.breaker.probes", breakers, b -> b.probes(partition))
          .description("Dequeues that probed the partition while its breaker was half-open")
          .tags(tags).register(registry);
    }
  }
}
