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
   * object comes back until the namespace's record changes. A record that does not decode counts as
   * no policy (logged once per record).
   */
  public static final class Reader implements Policies {
    private final ReadOnlyKeyValueStore<Bytes, byte[]> store;
    private final Map<String, Decoded> decoded = new HashMap<>();

    private record Decoded(byte[] raw, NamespacePolicy policy) {}

    public Reader(ReadOnlyKeyValueStore<Bytes, byte[]> store) {
      this.store = store;
    }

    @Override
    public NamespacePolicy policy(String namespace) {
      byte[] raw = store.get(Bytes.wrap(namespace.getBytes(StandardCharsets.UTF_8)));
      if (raw == null) {
        decoded.remove(namespace);
        return null;
      }
      Decoded known = decoded.get(namespace);
      if (known != null && (known.raw() == raw || Arrays.equals(known.raw(), raw))) {
        return known.policy();
      }
      NamespacePolicy policy = null;
      try {
        policy = OrdoSerdes.NAMESPACE_POLICY.decode(raw);
      } catch (OrdoSerdeException e) {
        log.error("The policy record of namespace {} does not decode; the server's defaults apply: {}", namespace,
            e.getMessage());
      }
      decoded.put(namespace, new Decoded(raw, policy));
      return policy;
    }
  }
}
