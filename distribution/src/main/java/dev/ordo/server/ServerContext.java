package dev.ordo.server;

import dev.ordo.api.ClusterTopics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** What a {@link ServerComponent} gets from the server it runs in. */
public interface ServerContext {
  /** The Kafka bootstrap servers: the embedded broker's address or {@code --bootstrap-servers}. */
  String bootstrapServers();

  /**
   * Base configuration for any Kafka client a component creates: {@code bootstrap.servers} and the
   * Kafka client settings of {@code --config} (security, SASL, SSL...). A fresh mutable copy on every
   * call: add your own settings to it.
   */
  Map<String, Object> kafkaClientConfig();

  /**
   * The settings of {@code --config} and the environment. {@link #kafkaClientConfig()} holds their
   * Kafka client keys already; a component takes the Ordo keys of its ConfigDef
   * ({@link ServerSettings#ordo(org.apache.kafka.common.config.ConfigDef)}) and, for Kafka Streams,
   * {@link ServerSettings#streams()}.
   */
  ServerSettings settings();

  /** The cluster's topic names ({@code --cluster}). */
  ClusterTopics topics();

  /** The specs of the cluster's topics; all of them exist when components start. */
  ClusterLayout layout();

  /** The partition count of {@code items}, {@code commands} and {@code deliveries} (equal). */
  int partitions();

  /** The delay tiers ({@code --delay-tiers}), strictly increasing. */
  List<Duration> delayTiers();

  /**
   * The server's state directory ({@code --state-dir}), locked by this server. Give each component
   * its own subdirectory, e.g. {@code stateDir().resolve("streams")}; {@code kafka/} is the
   * embedded broker's.
   */
  Path stateDir();

  /** Where components register their HTTP endpoints. */
  HttpRouter http();

  /**
   * The address at which other instances and clients reach this server's HTTP endpoints, e.g.
   * {@code http://127.0.0.1:7070}: the bound address, or this machine's host name when bound to
   * all interfaces ({@code --http-host 0.0.0.0}). Kafka Streams advertises it
   * ({@code application.server}) so that instances can forward queries to each other.
   */
  java.net.URI httpAddress();

  /**
   * The HTTP port's TLS context when it speaks HTTPS ({@code ordo.http.tls.*}), else null: what an
   * instance reaches the others' HTTP ports with.
   */
  default javax.net.ssl.SSLContext httpTls() {
    return null;
  }

  /** The server's metrics, served at {@code GET /metrics} (docs/operations.md). */
  io.micrometer.core.instrument.MeterRegistry meters();

  /** The address the HTTP API binds ({@code --http-host}); other listeners (the SQS endpoint) bind it too. */
  default String httpHost() {
    return httpAddress().getHost();
  }

  /** How the HTTP API authenticates callers ({@code ordo.http.auth}). */
  default dev.ordo.server.auth.SecurityConfig.Mode authMode() {
    return dev.ordo.server.auth.SecurityConfig.Mode.NONE;
  }

  /** The audit log ({@code <cluster>.audit}); null in servers that run without it. */
  default dev.ordo.server.auth.AuditLog audit() {
    return null;
  }

  /** The principals ({@code <cluster>.principals}); null in servers that run without them. */
  default dev.ordo.server.auth.PrincipalStore principals() {
    return null;
  }
}
