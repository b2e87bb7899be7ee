package dev.ordo.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * A real Kafka Streams RocksDB key-value store in a state directory, the kind the topology gives
 * {@link PriorityStore}, minus the changelog and the record cache: persistent, logging disabled,
 * caching disabled, initialised through {@link MockProcessorContext}.
 */
public final class RocksKv implements AutoCloseable {
  private final Path stateDir;
  public final KeyValueStore<Bytes, byte[]> kv;

  private RocksKv(Path stateDir, KeyValueStore<Bytes, byte[]> kv) {
    this.stateDir = stateDir;
    this.kv = kv;
  }

  /** A new, empty store in a new temporary directory, deleted on {@link #close}. */
  public static RocksKv open(String name) {
    try {
      return openAt(Files.createTempDirectory("ordo-store-" + name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The store kept in {@code stateDir} (a copy of an earlier store's directory), or a new one. */
  public static RocksKv openAt(Path stateDir) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ordo-store-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props, new TaskId(0, 0), stateDir.toFile());
    KeyValueStore<Bytes, byte[]> kv = Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(PriorityStore.STORE_NAME), Serdes.Bytes(), Serdes.ByteArray())
        .withLoggingDisabled()
        .withCachingDisabled()
        .build();
    kv.init(context.getStateStoreContext(), kv);
    return new RocksKv(stateDir, kv);
  }

  public Path stateDir() {
    return stateDir;
  }

  /** Closes the store and leaves its files. */
  public void closeKeepingFiles() {
    kv.close();
  }

  /** Closes the store and deletes its directory. */
  @Override
  public void close() {
    kv.close();
    delete(stateDir);
  }

  public static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static void copy(Path from, Path to) {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
