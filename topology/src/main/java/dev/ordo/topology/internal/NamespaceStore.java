package dev.ordo.topology.internal;

import dev.ordo.schema.NamespacePolicy;
import dev.ordo.serde.OrdoSerdeException;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespace policies of {@code <cluster>.namespaces}, as a global store every instance holds
 * whole (in memory; it is small) and every partition's processor reads: a policy written to the
 * topic applies on every partition as soon as the instance's global thread has read it.
 */
public final class NamespaceStore {
  public static final String NAME = "ordo-namespaces";
  private static final Logger log = LoggerFactory.getLogger(NamespaceStore.class);

  private NamespaceStore() {}

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
   * The policies of a global store, decoded once per change: the same {@link NamespacePolicy}
   * object comes back until the namespace's record changes. The store is looked at again for a
   * namespace at most every {@link #RECHECK_MS} ms of the stream thread's clock, not for every item.
   * A record that does not decode counts as no policy (logged once per record).
   */
  public static final class Reader implements Policies {
    /** How stale a namespace's policy may be read, on top of the global thread's own lag. */
    public static final long RECHECK_MS = 100;
    /** Namespaces remembered; beyond it the memory is cleared (namespaces without a policy included). */
    static final int MAX_NAMESPACES = 10_000;

    private final ReadOnlyKeyValueStore<Bytes, byte[]> store;
    private final java.util.function.LongSupplier clock;
    private final Map<String, Decoded> decoded = new HashMap<>();

    private record Decoded(byte[] raw, NamespacePolicy policy, long checkedAt) {}

    /** @param clock the stream thread's wall clock (ms) */
    public Reader(ReadOnlyKeyValueStore<Bytes, byte[]> store, java.util.function.LongSupplier clock) {
      this.store = store;
      this.clock = clock;
    }

    @Override
    public NamespacePolicy policy(String namespace) {
      long now = clock.getAsLong();
      Decoded known = decoded.get(namespace);
      if (known != null && now - known.checkedAt() < RECHECK_MS) {
        return known.policy();
      }
      if (decoded.size() >= MAX_NAMESPACES) {
        decoded.clear();
      }
      byte[] raw = store.get(Bytes.wrap(namespace.getBytes(StandardCharsets.UTF_8)));
      if (raw == null) {
        decoded.put(namespace, new Decoded(null, null, now));
        return null;
      }
      if (known != null && known.raw() != null && (known.raw() == raw || Arrays.equals(known.raw(), raw))) {
        decoded.put(namespace, new Decoded(known.raw(), known.policy(), now));
        return known.policy();
      }
      NamespacePolicy policy = null;
      try {
        policy = OrdoSerdes.NAMESPACE_POLICY.decode(raw);
      } catch (OrdoSerdeException e) {
        log.error("The policy record of namespace {} does not decode; the server's defaults apply: {}", namespace,
            e.getMessage());
      }
      decoded.put(namespace, new Decoded(raw, policy, now));
      return policy;
    }
  }
}
