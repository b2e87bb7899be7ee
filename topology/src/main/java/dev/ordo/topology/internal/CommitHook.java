package dev.ordo.topology.internal;

import dev.ordo.store.PriorityStore;
import dev.ordo.store.RestoreFollower;
import java.io.File;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorContextImpl;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls back the queue's processor when Kafka Streams flushes the caches of a task's stores, which
 * it does before every commit (before the producer is flushed and, under exactly-once, before the
 * transaction commits) and before a clean close. The processor's store holds the item table's
 * writes on the heap ({@code PriorityStore.holdItemWrites}) and writes them out then, in one batch,
 * into RocksDB and the changelog: the record cache's job, without its sorted map (decisions D15).
 *
 * <p>The hook is the innermost layer of the item table's store, under the changelogging layer, and
 * passes every call through. Kafka Streams reaches it through {@code CachedStateStore#flushCache},
 * an interface of its internals package, as it reaches its own record cache; the writes the
 * callback makes go through the whole store, so the changelogging layer logs them. If a future
 * version stops calling the hook, {@link #attach} still succeeds but nothing flushes; the
 * {@code QueueTopologyTest} cases fail then, which is why they exist.
 *
 * <p>The hook also sees the item table's restore (a standby's, or a task's before it runs): it hands
 * every restored batch to a {@link RestoreFollower} before RocksDB takes it, which keeps the task's
 * index store up with the table, and the processor {@link #adoptRestoredIndex adopts} that index
 * when the task starts instead of rebuilding it (decisions D35).
 */
public final class CommitHook {
  private static final Logger log = LoggerFactory.getLogger(CommitHook.class);

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

  /**
   * For the processor of a task starting on {@code store}: vouches for the index store kept up while
   * the item table was restored, if there is one, so that {@code PriorityStore#openIndex} trusts it.
   *
   * @return the item records the index followed, or -1 when there was no follower or it could not vouch
   */
  public static long adoptRestoredIndex(KeyValueStore<Bytes, byte[]> store) {
    HookedStore hook = store instanceof HookedStore h ? h
        : store instanceof WrappedStateStore<?, ?, ?> w ? w.findInner(HookedStore.class) : null;
    return hook == null ? -1 : hook.adopt();
  }

  /** What follows the item table's restore: nothing yet, a follower, or nothing ever again (one failed). */
  private enum Following { NOT_YET, FOLLOWING, OFF }

  private static final class HookedStore extends WrappedStateStore<KeyValueStore<Bytes, byte[]>, Bytes, byte[]>
      implements KeyValueStore<Bytes, byte[]> {
    private InternalProcessorContext<?, ?> context;
    private Runnable onFlush;
    /** Set on the restoring thread, handed to the stream thread with the task (Kafka Streams orders the two). */
    private volatile Following following = Following.NOT_YET;
    private volatile RestoreFollower follower;

    HookedStore(KeyValueStore<Bytes, byte[]> inner) {
      super(inner);
    }

    @Override
    public void init(StateStoreContext stateStoreContext, StateStore root) {
      if (stateStoreContext instanceof InternalProcessorContext<?, ?> internal) {
        context = internal;
      }
      following = Following.NOT_YET;
      follower = null;
      super.init(new RestoreTap(stateStoreContext, this), root);
    }

    /** Called with every restored batch before the inner store writes it. */
    void beforeRestore(Collection<ConsumerRecord<byte[], byte[]>> records) {
      if (following == Following.OFF) {
        return;
      }
      try {
        if (following == Following.NOT_YET) {
          KeyValueStore<Bytes, byte[]> index = indexStore();
          if (index == null) {
            following = Following.OFF;
            return;
          }
          long start = System.nanoTime();
          follower = RestoreFollower.open(wrapped(), index);
          following = Following.FOLLOWING;
          if (follower.rebuilt() > 0) {
            log.info("{}: indexed {} items of the restored item table in {} ms before following its restore",
                context.taskId(), follower.rebuilt(), (System.nanoTime() - start) / 1_000_000);
          }
        }
        follower.beforeWrite(records);
      } catch (RuntimeException e) {
        // The index can no longer vouch for the table (the open took the old vouch away): the
        // processor rebuilds it, as it did before followers existed.
        log.warn("{}: stopped keeping the index up with the item table's restore; the task will rebuild it",
            context == null ? "?" : context.taskId(), e);
        following = Following.OFF;
        follower = null;
      }
    }

    /** The index store of the same task, innermost (no metering); null when it cannot be had. */
    @SuppressWarnings("unchecked")
    private KeyValueStore<Bytes, byte[]> indexStore() {
      if (!(context instanceof ProcessorContextImpl impl)) {
        return null;
      }
      StateStore s = impl.stateManager().store(PriorityStore.INDEX_STORE_NAME);
      while (s instanceof WrappedStateStore<?, ?, ?> w) {
        s = w.wrapped();
      }
      return s instanceof KeyValueStore<?, ?> kv ? (KeyValueStore<Bytes, byte[]>) kv : null;
    }

    long adopt() {
      RestoreFollower f = follower;
      follower = null;
      following = Following.NOT_YET; // the processor owns the index now; a later restore (as a standby) follows anew
      if (f == null) {
        return -1;
      }
      try {
        return f.vouch() ? f.followed() : -1;
      } catch (RuntimeException e) {
        log.warn("{}: could not vouch for the index kept up during the restore; the task will rebuild it",
            context == null ? "?" : context.taskId(), e);
        return -1;
      }
    }

    @Override
    public void close() {
      follower = null;
      following = Following.OFF;
      super.close();
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

  /**
   * The store context the inner RocksDB store is initialised with: the task's own, but the restore
   * callback the store registers is wrapped so that the hook sees each batch first.
   */
  private static final class RestoreTap implements StateStoreContext {
    private final StateStoreContext context;
    private final HookedStore hook;

    RestoreTap(StateStoreContext context, HookedStore hook) {
      this.context = context;
      this.hook = hook;
    }

    private StateRestoreCallback tapped(StateRestoreCallback callback) {
      org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback batches =
          org.apache.kafka.streams.processor.internals.StateRestoreCallbackAdapter.adapt(callback);
      return (org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback) records -> {
        hook.beforeRestore(records);
        batches.restoreBatch(records);
      };
    }

    @Override
    public void register(StateStore store, StateRestoreCallback stateRestoreCallback) {
      context.register(store, tapped(stateRestoreCallback));
    }

    @Override
    public void register(StateStore store, StateRestoreCallback stateRestoreCallback, CommitCallback commitCallback) {
      context.register(store, tapped(stateRestoreCallback), commitCallback);
    }

    @Override
    public String applicationId() {
      return context.applicationId();
    }

    @Override
    public TaskId taskId() {
      return context.taskId();
    }

    @Override
    public Optional<RecordMetadata> recordMetadata() {
      return context.recordMetadata();
    }

    @Override
    public Serde<?> keySerde() {
      return context.keySerde();
    }

    @Override
    public Serde<?> valueSerde() {
      return context.valueSerde();
    }

    @Override
    public File stateDir() {
      return context.stateDir();
    }

    @Override
    public StreamsMetrics metrics() {
      return context.metrics();
    }

    @Override
    public Map<String, Object> appConfigs() {
      return context.appConfigs();
    }

    @Override
    public Map<String, Object> appConfigsWithPrefix(String prefix) {
      return context.appConfigsWithPrefix(prefix);
    }
  }
}
