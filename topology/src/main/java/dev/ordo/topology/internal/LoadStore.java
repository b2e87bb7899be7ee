package dev.ordo.topology.internal;

import dev.ordo.schema.TopicStats;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The topic stats of {@code <cluster>.topics} (keyed {@code namespace/topic/partition}) as a global
 * store every instance holds whole, in memory: how each partition's processor learns the load of a
 * namespace on the other partitions, to take its share of the namespace's rates and backlog limit.
 */
public final class LoadStore {
  public static final String NAME = "ordo-topic-load";
  /** Arrival rates in stats older than this are discounted as if they had decayed since. */
  private static final double TAU_MS = ArrivalRates.TAU_MS;

  private LoadStore() {}

  /** Keeps the global store equal to the topic: a record puts its bytes, a tombstone deletes. */
  public static final class Updater implements Processor<byte[], byte[], Void, Void> {
    private KeyValueStore<Bytes, byte[]> store;

    @Override
    public void init(ProcessorContext<Void, Void> context) {
      store = context.getStateStore(NAME);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
      if (record.key() != null) {
        store.put(Bytes.wrap(record.key()), record.value());
      }
    }
  }

  /**
   * Sums a namespace's stats over the other partitions, at most every {@link #RECHECK_MS} of the
   * stream thread's clock per namespace. Stats that do not decode are skipped.
   */
  public static final class Reader implements NamespaceLoad {
    static final long RECHECK_MS = 100;
    private static final int MAX_NAMESPACES = 10_000;

    private final ReadOnlyKeyValueStore<Bytes, byte[]> store;
    private final LongSupplier clock;
    private final dev.ordo.serde.WireFormat wire;
    private final Map<String, Known> known = new HashMap<>();

    private record Known(Load load, long at) {}

    public Reader(ReadOnlyKeyValueStore<Bytes, byte[]> store, LongSupplier clock) {
      this(store, clock, dev.ordo.serde.WireFormat.SINGLE_OBJECT);
    }

    /** {@code wire}: how the topics topic's stats are written (Confluent-framed with a schema registry). */
    public Reader(ReadOnlyKeyValueStore<Bytes, byte[]> store, LongSupplier clock, dev.ordo.serde.WireFormat wire) {
      this.store = store;
      this.clock = clock;
      this.wire = wire;
    }

    @Override
    public Load others(String namespace, int partition, long now) {
      long checked = clock.getAsLong();
      Known k = known.get(namespace);
      if (k != null && checked - k.at() < RECHECK_MS) {
        return k.load();
      }
      if (known.size() >= MAX_NAMESPACES) {
        known.clear();
      }
      Load load = sum(namespace, partition, now);
      known.put(namespace, new Known(load, checked));
      return load;
    }

    private Load sum(String namespace, int partition, long now) {
      long waiting = 0;
      long ready = 0;
      double demand = 0;
      java.util.Set<Integer> demanding = new java.util.HashSet<>();
      byte[] from = (namespace + "/").getBytes(StandardCharsets.UTF_8);
      byte[] to = (namespace + "0").getBytes(StandardCharsets.UTF_8); // '0' follows '/'
      try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(from), Bytes.wrap(to))) {
        while (it.hasNext()) {
          KeyValue<Bytes, byte[]> e = it.next();
          if (e.value == null) {
            continue;
          }
          TopicStats s;
          try {
            s = wire.decode(OrdoSerdes.TOPIC_STATS, e.value);
          } catch (OrdoSerdeException bad) {
            continue;
          }
          if (s.getPartition() == partition || !namespace.equals(s.getNamespace())) {
            continue;
          }
          waiting += s.getReady() + s.getDelayed() + s.getParked();
          ready += s.getReady();
          double age = Math.max(0, now - s.getUpdatedAt());
          double d = s.getOverflow() + s.getArrivalsPerSecond() * Math.exp(-age / TAU_MS);
          demand += d;
          if (d > 0.01) {
            demanding.add(s.getPartition());
          }
        }
      }
      return new Load(waiting, demand, ready, demanding.size());
    }
  }
}
