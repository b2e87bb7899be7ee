package dev.ordo.bench.internal;

import dev.ordo.api.TopicsReady;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The Kafka cluster the bench runs against: one Admin client, topic set-up and clean-up. */
public final class BenchKafka implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BenchKafka.class);
  private static final long TIMEOUT_S = 60;

  public static final String SHARE_HEARTBEAT = "group.share.heartbeat.interval.ms";
  public static final String SHARE_MIN_HEARTBEAT = "group.share.min.heartbeat.interval.ms";

  private final String bootstrapServers;
  private final Admin admin;
  private final int brokers;
  private final Map<String, String> brokerConfig;

  public BenchKafka(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
    this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TimeUnit.SECONDS.toMillis(TIMEOUT_S)));
    try {
      Collection<Node> nodes = get(admin.describeCluster().nodes());
      this.brokers = nodes.size();
      Node first = nodes.iterator().next();
      ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, first.idString());
      Config config = get(admin.describeConfigs(List.of(broker)).all()).get(broker);
      Map<String, String> values = new HashMap<>();
      for (ConfigEntry e : config.entries()) {
        if (e.value() != null) {
          values.put(e.name(), e.value());
        }
      }
      this.brokerConfig = Map.copyOf(values);
    } catch (RuntimeException e) {
      admin.close(Duration.ZERO);
      throw e;
    }
  }

  /** {@code ordo.schema.registry.url} for the Ordo clusters and clients of the run, or null. */
  private volatile String schemaRegistryUrl;

  /** Ordo's clusters and clients made from now on use this schema registry (null: none). */
  public void useSchemaRegistry(String url) {
    this.schemaRegistryUrl = url;
  }

  public String schemaRegistryUrl() {
    return schemaRegistryUrl;
  }

  /** Puts {@code ordo.schema.registry.url} in an Ordo config when the run uses a registry. */
  public Map<String, Object> withRegistry(Map<String, Object> ordoConfig) {
    if (schemaRegistryUrl != null) {
      ordoConfig.put(dev.ordo.topology.QueueConfig.SCHEMA_REGISTRY_URL_CONFIG, schemaRegistryUrl);
    }
    return ordoConfig;
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public Admin admin() {
    return admin;
  }

  public int brokers() {
    return brokers;
  }

  /** Replication of the bench's topics: 3 on clusters of 3 brokers or more, else all brokers. */
  public short replication() {
    return (short) Math.min(3, brokers);
  }

  /** A broker setting as the first broker reports it, or null. */
  public String brokerConfig(String name) {
    return brokerConfig.get(name);
  }

  public void createTopics(Collection<NewTopic> topics) {
    get(admin.createTopics(topics).all());
    // Not before every partition's leader answers: a producer racing the partition's opening got
    // OUT_OF_ORDER_SEQUENCE_NUMBER forever (see TopicsReady).
    TopicsReady.await(admin, topics.stream().map(NewTopic::name).toList(), Duration.ofSeconds(TIMEOUT_S));
  }

  public void createTopics(int partitions, String... names) {
    createTopics(java.util.Arrays.stream(names).map(n -> new NewTopic(n, partitions, replication())).toList());
  }

  /** Sets a consumer or share group's config (e.g. {@code share.auto.offset.reset}). */
  public void setGroupConfig(String group, String name, String value) {
    ConfigResource r = new ConfigResource(ConfigResource.Type.GROUP, group);
    get(admin.incrementalAlterConfigs(Map.of(r,
        List.of(new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET)))).all());
  }

  /** Deletes every topic whose name starts with one of {@code prefixes}; failures are only logged. */
  public void deleteTopicsStartingWith(String... prefixes) {
    try {
      Set<String> all = get(admin.listTopics().names());
      List<String> doomed = all.stream().filter(t -> {
        for (String p : prefixes) {
          if (t.startsWith(p)) {
            return true;
          }
        }
        return false;
      }).toList();
      if (!doomed.isEmpty()) {
        get(admin.deleteTopics(doomed).all());
      }
    } catch (RuntimeException e) {
      log.warn("Could not delete the bench's topics {}*: {}", List.of(prefixes), e.toString());
    }
  }

  /**
   * The sum of the end offsets of every partition of the topics whose name starts with
   * {@code prefix}: how many records (transaction markers included) were ever written to them.
   */
  public long endOffsetsSum(String prefix) {
    Set<String> names = get(admin.listTopics().names()).stream().filter(t -> t.startsWith(prefix))
        .collect(java.util.stream.Collectors.toSet());
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (var d : get(admin.describeTopics(names).allTopicNames()).values()) {
      for (var p : d.partitions()) {
        request.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest());
      }
    }
    long sum = 0;
    Map<String, Long> byTopic = new java.util.TreeMap<>();
    for (var e : get(admin.listOffsets(request).all()).entrySet()) {
      sum += e.getValue().offset();
      byTopic.merge(e.getKey().topic(), e.getValue().offset(), Long::sum);
    }
    if (Boolean.getBoolean("ordo.bench.debugOffsets")) {
      System.err.println("end offsets: " + byTopic);
    }
    return sum;
  }

  public static <T> T get(org.apache.kafka.common.KafkaFuture<T> f) {
    try {
      return f.get(TIMEOUT_S, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("no answer from Kafka within " + TIMEOUT_S + " s", e);
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}
