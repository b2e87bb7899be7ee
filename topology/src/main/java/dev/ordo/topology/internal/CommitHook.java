package dev.ordo.topology.internal;

import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * Calls back the queue's processor when Kafka Streams flushes the caches of a task's stores, which
 * it does before every commit (before the producer is flushed and, under exactly-once, before the
 * transaction commits) and before a clean close. The processor's store holds the item table's
 * writes and the state log's changes on the heap ({@code PriorityStore.holdItemWrites}) and writes them
 * out then, in one batch each: the item table into RocksDB, the state log into RocksDB and its changelog: the record cache's job, without its sorted map (decisions D15).
 *
 * <p>The hook is the innermost layer of the state store, under the changelogging layer, and
 * passes every call through. Kafka Streams reaches it through {@code CachedStateStore#flushCache},
 * an interface of its internals package, as it reaches its own record cache; the writes the
 * callback makes go through the whole store, so the changelogging layer logs them. If a future
 * version stops calling the hook, {@link #attach} still succeeds but nothing flushes; the
 * {@code QueueTopologyTest} cases fail then, which is why they exist.
 * */
public final class CommitHook {
  private CommitHook() {}

  /** A supplier of {@code inner}'s stores, each wrapped in a hook. */
  public static KeyValueBytesStoreSupplier around(KeyValueBytesStoreSupplier inner) {
    return new KeyValueBytesStoreSupplier() {
      @Override
      public String name() {
        return inner.name();
      }

      @Override
      public KeyValueStore<Bytes, byte[]> get() {
        return new HookedStore(inner.get());
      }

      @Override
      public String metricsScope() {
        return inner.metricsScope();
      }
    };
  }

  /**
   * Makes {@code onFlush} run at every flush of {@code store}'s caches.
   *
   * @return false when the store has no hook (built without {@link #around}): nothing will call back
   */
  public static boolean attach(KeyValueStore<Bytes, byte[]> store, Runnable onFlush) {
    HookedStore hook = store instanceof HookedStore h ? h
        : store instanceof WrappedStateStore<?, ?, ?> w ? w.findInner(HookedStore.class) : null;
    if (hook == null) {
      return false;
    }
    hook.onFlush = onFlush;
    return true;
  }

  private static final class HookedStore extends WrappedStateStore<KeyValueStore<Bytes, byte[]>, Bytes, byte[]>
      implements KeyValueStore<Bytes, byte[]> {
    private InternalProcessorContext<?, ?> context;
    private Runnable onFlush;

    HookedStore(KeyValueStore<Bytes, byte[]> inner) {
      super(inner);
    }

    @Override
    public void init(StateStoreContext stateStoreContext, StateStore root) {
      if (stateStoreContext instanceof InternalProcessorContext<?, ?> internal) {
        context = internal;
      }
      super.init(stateStoreContext, root);
    }

    @Override
    public void flushCache() {
      Runnable callback = onFlush;
      if (callback == null) {
        return;
      }
      if (context == null) {
        callback.run();
        return;
      }
      // The changelogging layer stamps each record with the current record context, which is null
      // between tasks' work (right after a task starts, say): give the batch the wall-clock time.
      ProcessorRecordContext current = context.recordContext();
      context.setRecordContext(new ProcessorRecordContext(System.currentTimeMillis(), -1, -1, null, new RecordHeaders()));
      try {
        callback.run();
      } finally {
        context.setRecordContext(current);
      }
    }

    @Override
    public void clearCache() {
      onFlush = null; // the task's state is being recycled; its processor (and held writes) are gone
    }

    @Override
    public void put(Bytes key, byte[] value) {
      wrapped().put(key, value);
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
      return wrapped().putIfAbsent(key, value);
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
      wrapped().putAll(entries);
    }

    @Override
    public byte[] delete(Bytes key) {
      return wrapped().delete(key);
    }

    @Override
    public byte[] get(Bytes key) {
      return wrapped().get(key);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
      return wrapped().range(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
      return wrapped().reverseRange(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
      return wrapped().all();
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
      return wrapped().reverseAll();
    }

    @Override
    public <PS extends org.apache.kafka.common.serialization.Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(
        P prefix, PS prefixKeySerializer) {
      return wrapped().prefixScan(prefix, prefixKeySerializer);
    }

    @Override
    public long approximateNumEntries() {
      return wrapped().approximateNumEntries();
    }
  }
}
