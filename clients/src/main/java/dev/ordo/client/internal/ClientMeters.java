package dev.ordo.client.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/** The Kafka clients' own metrics bound to registries (Micrometer's KafkaClientMetrics), until closed. */
public final class ClientMeters implements AutoCloseable {
  private final List<KafkaClientMetrics> bound = new ArrayList<>();

  public synchronized void bind(MeterRegistry registry, Producer<?, ?> producer) {
    add(new KafkaClientMetrics(producer), registry);
  }

  public synchronized void bind(MeterRegistry registry, Consumer<?, ?> consumer) {
    add(new KafkaClientMetrics(consumer), registry);
  }

  private void add(KafkaClientMetrics m, MeterRegistry registry) {
    m.bindTo(registry);
    bound.add(m);
  }

  @Override
  public synchronized void close() {
    bound.forEach(KafkaClientMetrics::close);
    bound.clear();
  }
}
