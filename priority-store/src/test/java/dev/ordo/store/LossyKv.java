package dev.ordo.store;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A store that silently drops writes while {@link #losing} is set: what an item table restored
 * from its changelog looks like when a task closed dirty and its last held writes never reached
 * the changelog. It also records the batches written through {@link #putAll}, in order, and every
 * write that reached the inner store, in order ({@link #log}: what the store's changelog would hold).
 */
final class LossyKv extends ForwardingKv {
  boolean losing;
  /** Every batch of {@link #putAll} that reached the inner store. */
  final List<List<KeyValue<Bytes, byte[]>>> batches = new ArrayList<>();
  /** Every write that reached the inner store (a null value: a delete), in order. */
  final List<KeyValue<Bytes, byte[]>> log = new ArrayList<>();

  LossyKv(KeyValueStore<Bytes, byte[]> inner) {
    super(inner);
  }

  @Override
  public void put(Bytes key, byte[] value) {
    if (!losing) {
      inner.put(key, value);
      log.add(KeyValue.pair(key, value));
    }
  }

  @Override
  public byte[] putIfAbsent(Bytes key, byte[] value) {
    if (losing) {
      return inner.get(key);
    }
    byte[] was = inner.putIfAbsent(key, value);
    if (was == null) {
      log.add(KeyValue.pair(key, value));
    }
    return was;
  }

  @Override
  public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
    if (!losing) {
      inner.putAll(entries);
      batches.add(List.copyOf(entries));
      log.addAll(entries);
    }
  }

  @Override
  public byte[] delete(Bytes key) {
    if (losing) {
      return inner.get(key);
    }
    log.add(KeyValue.pair(key, null));
    return inner.delete(key);
  }
}
