package dev.ordo.server;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The settings of one {@link OrdoServer}, the flags of {@code ordo server}.
 *
 * @param bootstrapServers the Kafka cluster to join; empty: start an embedded broker
 * @param partitions the partition count for new topics; empty: the count of the existing topics,
 *     else {@link #DEFAULT_PARTITIONS}. When given, existing topics must have it.
 * @param httpPort 0 for any free port
 * @param kafkaPort the embedded broker's port, 0 for any free port; ignored with bootstrap servers
 * @param settings the settings of {@code --config} and the environment: Kafka client, Kafka Streams and
 *     Ordo keys for the components (see {@link ServerSettings})
 */
public record ServerConfig(
    Optional<String> bootstrapServers,
    ClusterTopics topics,
    OptionalInt partitions,
    List<Duration> delayTiers,
    Path stateDir,
    String httpHost,
    int httpPort,
    int kafkaPort,
    ServerSettings settings) {

  public static final String DEFAULT_CLUSTER = ServerSettings.DEFAULT_CLUSTER;
  public static final int DEFAULT_PARTITIONS = ServerSettings.DEFAULT_PARTITIONS;
  public static final String DEFAULT_DELAY_TIERS = ServerSettings.DEFAULT_DELAY_TIERS;
  public static final String DEFAULT_STATE_DIR = ServerSettings.DEFAULT_STATE_DIR;
  public static final String DEFAULT_HTTP_HOST = ServerSettings.DEFAULT_HTTP_HOST;
  public static final int DEFAULT_HTTP_PORT = ServerSettings.DEFAULT_HTTP_PORT;

  public ServerConfig {
    Objects.requireNonNull(bootstrapServers);
    Objects.requireNonNull(topics);
    Objects.requireNonNull(partitions);
    delayTiers = List.copyOf(delayTiers);
    Objects.requireNonNull(stateDir);
    Objects.requireNonNull(httpHost);
    Objects.requireNonNull(settings);
    if (partitions.isPresent() && partitions.getAsInt() < 1) {
      throw new IllegalArgumentException("partitions must be at least 1, got " + partitions.getAsInt());
    }
    if (delayTiers.isEmpty()) {
      throw new IllegalArgumentException("at least one delay tier is needed");
    }
    checkPort("HTTP port", httpPort);
    checkPort("Kafka port", kafkaPort);
  }

  private static void checkPort(String what, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(what + " must be 0-65535, got " + port);
    }
  }

  /** The defaults of {@code ordo server}: embedded Kafka, cluster {@code ordo}, {@code ./.ordo}, port 7070. */
  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.bootstrapServers = bootstrapServers;
    b.topics = topics;
    b.partitions = partitions;
    b.delayTiers = delayTiers;
    b.stateDir = stateDir;
    b.httpHost = httpHost;
    b.httpPort = httpPort;
    b.kafkaPort = kafkaPort;
    b.settings = settings;
    return b;
  }

  public boolean embeddedKafka() {
    return bootstrapServers.isEmpty();
  }

  public static final class Builder {
    private Optional<String> bootstrapServers = Optional.empty();
    private ClusterTopics topics = new ClusterTopics(DEFAULT_CLUSTER);
    private OptionalInt partitions = OptionalInt.empty();
    private List<Duration> delayTiers = Durations.parseList(DEFAULT_DELAY_TIERS);
    private Path stateDir = Path.of(DEFAULT_STATE_DIR);
    private String httpHost = DEFAULT_HTTP_HOST;
    private int httpPort = DEFAULT_HTTP_PORT;
    private int kafkaPort = 0;
    private ServerSettings settings = ServerSettings.none();

    private Builder() {}

    public Builder settings(ServerSettings settings) {
      this.settings = settings;
      return this;
    }

    /** null or blank: embedded broker. */
    public Builder bootstrapServers(String servers) {
      this.bootstrapServers = servers == null || servers.isBlank() ? Optional.empty() : Optional.of(servers.trim());
      return this;
    }

    public Builder cluster(String name) {
      this.topics = new ClusterTopics(name);
      return this;
    }

    public Builder partitions(int partitions) {
      this.partitions = OptionalInt.of(partitions);
      return this;
    }

    public Builder partitions(OptionalInt partitions) {
      this.partitions = partitions;
      return this;
    }

    public Builder delayTiers(List<Duration> tiers) {
      this.delayTiers = tiers;
      return this;
    }

    public Builder stateDir(Path dir) {
      this.stateDir = dir;
      return this;
    }

    public Builder httpHost(String host) {
      this.httpHost = host;
      return this;
    }

    public Builder httpPort(int port) {
      this.httpPort = port;
      return this;
    }

    public Builder kafkaPort(int port) {
      this.kafkaPort = port;
      return this;
    }

    public ServerConfig build() {
      return new ServerConfig(bootstrapServers, topics, partitions, delayTiers, stateDir, httpHost, httpPort, kafkaPort,
          settings);
    }
  }
}
