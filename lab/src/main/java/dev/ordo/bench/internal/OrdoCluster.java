package dev.ordo.bench.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Durations;
import dev.ordo.client.LeaseConsumerConfig;
import dev.ordo.client.NamespaceAdmin;
import dev.ordo.client.NamespacePolicy;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueProducerConfig;
import dev.ordo.delay.DelayTiers;
import dev.ordo.delay.DelayTiersConfig;
import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueService;
import dev.ordo.topology.internal.NamespaceStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Ordo cluster of the bench, made for one scenario and round: its topics (a unique prefix), one
 * queue instance ({@link QueueService}) with a temporary state directory, and with delay tiers the
 * tier forwarders ({@link DelayTiers}). Closing stops them and deletes the topics and the state.
 */
public final class OrdoCluster implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OrdoCluster.class);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration POLICY_TIMEOUT = Duration.ofSeconds(30);

  private final BenchKafka kafka;
  private final ClusterTopics topics;
  private final int partitions;
  private final boolean keepTopics;
  private final Path stateDir;
  private final QueueService service;
  private final long leaseMs;
  private final DelayTiers tiers;
  private final PrometheusMeterRegistry meters;
  private ScheduledExecutorService scraper;
  private volatile long scrapedBytes;

  /**
   * @param guarantee {@code exactly_once_v2} or {@code at_least_once}
   * @param delayTiers tiers such as {@code 200ms,500ms}, or empty for none
   */
  public OrdoCluster(BenchKafka kafka, String cluster, int partitions, String guarantee, String delayTiers,
      boolean keepTopics) {
    this.kafka = kafka;
    this.topics = new ClusterTopics(cluster);
    this.partitions = partitions;
    this.keepTopics = keepTopics;
    List<Duration> tierList = delayTiers.isBlank() ? List.of() : Durations.parseList(delayTiers);
    List<NewTopic> newTopics = new ArrayList<>();
    for (String t : List.of(topics.items(), topics.commands(), topics.deliveries(), topics.dlq())) {
      newTopics.add(new NewTopic(t, partitions, kafka.replication()));
    }
    newTopics.add(new NewTopic(topics.topicStats(), partitions, kafka.replication())
        .configs(Map.of("cleanup.policy", "compact")));
    newTopics.add(new NewTopic(topics.namespaces(), 1, kafka.replication())
        .configs(Map.of("cleanup.policy", "compact")));
    if (!tierList.isEmpty()) {
      newTopics.addAll(DelayTiers.newTopics(cluster, tierList, partitions, kafka.replication()));
    }
    kafka.createTopics(newTopics);
    try {
      this.stateDir = Files.createTempDirectory("ordo-bench-" + cluster);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Object> streams = new HashMap<>();
    streams.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    streams.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    streams.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
    Map<String, Object> queue = new HashMap<>();
    queue.put(QueueConfig.CLUSTER_CONFIG, cluster);
    queue.put(QueueConfig.DELAY_TIERS_CONFIG, delayTiers);
    kafka.withRegistry(queue);
    // Experiments: -Dordo.bench.streams.<key>=<value> overrides a Kafka Streams setting of the queue,
    // -Dordo.bench.queue.<key>=<value> a queue setting (QueueConfig).
    overrides("ordo.bench.streams.", streams);
    overrides("ordo.bench.queue.", queue);
    // -Dordo.bench.metrics=true: the queue records into a Prometheus registry, scraped every 5 s, as
    // ordo server's does (the metrics' cost, docs/benchmarks.md at 328b420).
    this.meters = Boolean.getBoolean("ordo.bench.metrics") ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) : null;
    this.service = new QueueService(streams, queue, partitions, meters);
    this.leaseMs = new QueueConfig(queue).defaults().leaseMs();
    if (meters != null) {
      scraper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-scraper-" + cluster);
        t.setDaemon(true);
        return t;
      });
      scraper.scheduleAtFixedRate(() -> scrapedBytes += meters.scrape().length(), 5, 5, TimeUnit.SECONDS);
    }
    DelayTiers t = null;
    try {
      service.start();
      if (!tierList.isEmpty()) {
        t = new DelayTiers(Map.of(
            "bootstrap.servers", kafka.bootstrapServers(),
            DelayTiersConfig.CLUSTER_CONFIG, cluster,
            DelayTiersConfig.TIERS_CONFIG, delayTiers,
            DelayTiersConfig.INSTANCE_ID_CONFIG, cluster + "-bench"));
        t.start();
      }
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (!service.isRunning()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the queue of cluster " + cluster + " is not running after "
              + START_TIMEOUT.toSeconds() + " s (state " + service.streams().state() + ")");
        }
        BenchKafka.sleep(20);
      }
    } catch (RuntimeException e) {
      this.tiers = t;
      close();
      throw e;
    }
    this.tiers = t;
  }

  public ClusterTopics topics() {
    return topics;
  }

  public QueueService service() {
    return service;
  }

  /** The lease an item gets when it names none: what a delivery's {@code leaseExpiresAt} counts from. */
  public long leaseMs() {
    return leaseMs;
  }

  public int partitions() {
    return partitions;
  }

  /** Settings of a {@code QueueProducer} of this cluster. */
  public Map<String, Object> producerConfig() {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", kafka.bootstrapServers());
    c.put(QueueProducerConfig.CLUSTER_CONFIG, topics.cluster());
    // Experiments: -Dordo.bench.producer.<key>=<value> overrides a queue producer setting.
    overrides("ordo.bench.producer.", c);
    return kafka.withRegistry(c);
  }

  /** Settings of a {@code LeaseConsumer} of this cluster working on every topic of {@code namespace}. */
  public Map<String, Object> consumerConfig(String group, String namespace, int maxInFlight, int workers) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", kafka.bootstrapServers());
    c.put(QueueClientConfig.CLUSTER_CONFIG, topics.cluster());
    c.put(LeaseConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(LeaseConsumerConfig.NAMESPACE_CONFIG, namespace);
    c.put(LeaseConsumerConfig.TOPICS_CONFIG, "*");
    c.put(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, maxInFlight);
    c.put(LeaseConsumerConfig.WORKERS_CONFIG, workers);
    c.put("consumer." + ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
    c.put("consumer." + ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
    // Experiments: -Dordo.bench.consumer.<key>=<value> overrides a lease consumer setting.
    overrides("ordo.bench.consumer.", c);
    return kafka.withRegistry(c);
  }

  /**
   * Writes each namespace's policy ({@link NamespaceAdmin}) and waits until this cluster's queue
   * holds them all in its global store, from which every partition reads them (within the
   * store reader's 100 ms).
   *
   * @throws IllegalStateException when the queue has not read them within {@link #POLICY_TIMEOUT}
   */
  public void applyPolicies(Map<String, NamespacePolicy> policies) {
    if (policies.isEmpty()) {
      return;
    }
    try (NamespaceAdmin admin = new NamespaceAdmin(Map.of("bootstrap.servers", kafka.bootstrapServers()),
        topics.cluster())) {
      policies.forEach(admin::set);
    }
    long deadline = System.nanoTime() + POLICY_TIMEOUT.toNanos();
    for (String namespace : policies.keySet()) {
      Bytes key = Bytes.wrap(namespace.getBytes(StandardCharsets.UTF_8));
      while (true) {
        try {
          ReadOnlyKeyValueStore<Bytes, byte[]> store = service.streams().store(
              StoreQueryParameters.fromNameAndType(NamespaceStore.NAME, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()));
          if (store.get(key) != null) {
            break;
          }
        } catch (InvalidStateStoreException e) {
          // not queryable yet (the global thread is restoring): ask again
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the queue of " + topics.cluster() + " has not read the policy of "
              + namespace + " after " + POLICY_TIMEOUT.toSeconds() + " s");
        }
        BenchKafka.sleep(20);
      }
    }
  }

  @Override
  public void close() {
    if (scraper != null) {
      scraper.shutdownNow();
    }
    if (tiers != null) {
      try {
        tiers.close();
      } catch (RuntimeException e) {
        log.warn("Closing the delay tiers of {} failed", topics.cluster(), e);
      }
    }
    try {
      service.close();
    } catch (RuntimeException e) {
      log.warn("Closing the queue of {} failed", topics.cluster(), e);
    }
    if (!keepTopics) {
      kafka.deleteTopicsStartingWith(topics.cluster() + ".", topics.applicationId() + "-");
    }
    deleteRecursively(stateDir);
  }

  static void deleteRecursively(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      log.warn("Could not delete {}: {}", dir, e.toString());
    }
  }

  private static void overrides(String prefix, Map<String, Object> into) {
    System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(prefix))
        .forEach(k -> into.put(k.substring(prefix.length()), System.getProperty(k)));
  }
}
