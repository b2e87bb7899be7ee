package dev.ordo.store;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A store that silently drops writes while {@link #losing} is set: what an item table restored
 * from its changelog looks like when a task closed dirty and its last held writes never reached
 * the changelog. It also records the batches written through {@link #putAll}, in order, and every
 * write that reached the inner store, in order ({@link #log}: what the store's changelog would hold).
 */
final class LossyKv implements KeyValueStore<Bytes, byte[]> {
  private final KeyValueStore<Bytes, byte[]> inner;
  boolean losing;
  /** Every batch of {@link #putAll} that reached the inner store. */
  final List<List<KeyValue<Bytes, byte[]>>> batches = new ArrayList<>();
  /** Every write that reached the inner store (a null value: a delete), in order. */
  final List<KeyValue<Bytes, byte[]>> log = new ArrayList<>();

  LossyKv(KeyValueStore<Bytes, byte[]> inner) {
    this.inner = inner;
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

  @Override
  public byte[] get(Bytes key) {
    return inner.get(key);
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
    return inner.range(from, to);
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> all() {
    return inner.all();
  }

  @Override
  public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS serializer) {
    return inner.prefixScan(prefix, serializer);
  }

  @Override
  public long approximateNumEntries() {
    return inner.approximateNumEntries();
  }

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public void init(StateStoreContext context, StateStore root) {
    inner.init(context, root);
  }

  @Override
  public void flush() {
    inner.flush();
  }

  @Override
  public void close() {
    inner.close();
  }

  @Override
  public boolean persistent() {
    return inner.persistent();
  }

  @Override
  public boolean isOpen() {
    return inner.isOpen();
  }

  @Override
  public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
    return inner.query(query, positionBound, config);
  }

  @Override
  public Position getPosition() {
    return inner.getPosition();
  }
}
