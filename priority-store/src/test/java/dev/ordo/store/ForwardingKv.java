package dev.ordo.store;

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

/** A store that hands every call to {@link #inner}: the base of test stores that watch or change a few of them. */
abstract class ForwardingKv implements KeyValueStore<Bytes, byte[]> {
  protected final KeyValueStore<Bytes, byte[]> inner;

  ForwardingKv(KeyValueStore<Bytes, byte[]> inner) {
    this.inner = inner;
  }

  @Override
  public void put(Bytes key, byte[] value) {
    inner.put(key, value);
  }

  @Override
  public byte[] putIfAbsent(Bytes key, byte[] value) {
    return inner.putIfAbsent(key, value);
  }

  @Override
  public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
    inner.putAll(entries);
  }

  @Override
  public byte[] delete(Bytes key) {
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
  public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
    return inner.reverseRange(from, to);
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> all() {
    return inner.all();
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> reverseAll() {
    return inner.reverseAll();
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
