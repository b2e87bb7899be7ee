package dev.ordo.server;

import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueProducerConfig;
import dev.ordo.delay.DelayTiersConfig;
import dev.ordo.topology.QueueConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The settings of {@code ordo server} beyond its flags, from {@code --config FILE} (Java properties)
 * and {@code ORDO_*} environment variables (docs/running.md). Three kinds of key, each checked
 * against the ConfigDefs that own it, so a misspelt or invalid key stops the server with one line
 * naming it:
 * <ul>
 *   <li>{@code ordo.*}: Ordo's own, from {@link QueueConfig} (the queue), {@link DelayTiersConfig} (the
 *       forwarders and the HTTP API's delay client), {@link QueueClientConfig} and
 *       {@link QueueProducerConfig} (the HTTP API's client and producer), and {@link #SERVER} (what the
 *       flags set); each component gets the keys its ConfigDef defines;</li>
 *   <li>{@code streams.<key>}: a Kafka Streams setting of the queue ({@link StreamsConfig}, including
 *       its client prefixes, e.g. {@code streams.num.standby.replicas},
 *       {@code streams.producer.linger.ms});</li>
 *   <li>any other key: a Kafka client setting ({@code security.protocol}, {@code sasl.*}, {@code ssl.*},
 *       {@code bootstrap.servers}, ...), given to every Kafka client the server makes: its admin
 *       client, Kafka Streams, the forwarders', the HTTP API's producers and consumers.</li>
 * </ul>
 * Precedence, lowest first: defaults, the file, the environment, the flags.
 */
public final class ServerSettings {
  public static final String STREAMS_PREFIX = "streams.";

  // The defaults of the flags' keys (ServerConfig's builder starts from the same).
  public static final String DEFAULT_CLUSTER = "ordo";
  public static final int DEFAULT_PARTITIONS = 4;
  public static final String DEFAULT_DELAY_TIERS = "30s,1m,5m,30m";
  public static final String DEFAULT_STATE_DIR = "./.ordo";
  public static final String DEFAULT_HTTP_HOST = "127.0.0.1";
  public static final int DEFAULT_HTTP_PORT = 7070;

  /** What the flags of {@code ordo server} set, as keys, so that a file or Docker's environment can set them. */
  public static final ConfigDef SERVER = new ConfigDef()
      .define("ordo.cluster", ConfigDef.Type.STRING, DEFAULT_CLUSTER, ConfigDef.Importance.HIGH,
          "The cluster name, prefix of its topics (--cluster).")
      .define("ordo.delay.tiers", ConfigDef.Type.STRING, DEFAULT_DELAY_TIERS, ConfigDef.Importance.MEDIUM,
          "Delay tiers, strictly increasing (--delay-tiers).")
      .define("ordo.server.partitions", ConfigDef.Type.INT, null, (name, value) -> {
        if (value != null && (Integer) value < 1) {
          throw new ConfigException(name, value, "must be at least 1");
        }
      },
          ConfigDef.Importance.MEDIUM, "Partitions of new topics (--partitions); none: the existing topics' count, else 4.")
      .define("ordo.server.state.dir", ConfigDef.Type.STRING, DEFAULT_STATE_DIR, ConfigDef.Importance.MEDIUM,
          "Directory for local state and the embedded broker's data (--state-dir).")
      .define("ordo.server.http.host", ConfigDef.Type.STRING, DEFAULT_HTTP_HOST, ConfigDef.Importance.MEDIUM,
          "Address the HTTP server binds (--http-host); 0.0.0.0 for all interfaces.")
      .define("ordo.server.http.port", ConfigDef.Type.INT, DEFAULT_HTTP_PORT, ConfigDef.Range.between(0, 65535),
          ConfigDef.Importance.MEDIUM, "HTTP port (--http-port); 0: any free port.")
      .define("ordo.server.kafka.port", ConfigDef.Type.INT, 0, ConfigDef.Range.between(0, 65535), ConfigDef.Importance.LOW,
          "Port of the embedded broker (--kafka-port); 0: any free port. Not with bootstrap.servers.");

  /** Ordo's ConfigDefs by what they configure, in the order docs/running.md lists them. */
  public record Section(String title, ConfigDef def, Set<String> setByServer) {}

  public static final List<Section> SECTIONS = List.of(
      new Section("Server (the flags)", SERVER, Set.of()),
      new Section("The HTTP server", HttpServerConfig.CONFIG, Set.of()),
      new Section("Queue", QueueConfig.CONFIG, Set.of(QueueConfig.CLUSTER_CONFIG, QueueConfig.DELAY_TIERS_CONFIG)),
      new Section("Delay tiers", DelayTiersConfig.configDef(), Set.of(DelayTiersConfig.CLUSTER_CONFIG,
          DelayTiersConfig.TIERS_CONFIG, DelayTiersConfig.INSTANCE_ID_CONFIG)),
      new Section("The HTTP API's queue client", QueueClientConfig.configDef(), Set.of(QueueClientConfig.CLUSTER_CONFIG,
          QueueClientConfig.CLIENT_ID_CONFIG)),
      new Section("The HTTP API's producer", QueueProducerConfig.configDef(), Set.of(QueueProducerConfig.CLUSTER_CONFIG)),
      new Section("The web console", dev.ordo.server.console.ConsoleConfig.CONFIG, Set.of()),
      new Section("Security (docs/security.md)", dev.ordo.server.auth.SecurityConfig.CONFIG, Set.of()),
      new Section("The SQS endpoint (docs/sqs.md)", dev.ordo.server.sqs.SqsConfig.CONFIG, Set.of()));

  /** Environment variables of the launcher and the CLI, not settings: never refused. */
  static final Set<String> NOT_SETTINGS = Set.of("ORDO_JAVA_OPTS", "ORDO_SKIP_BUILD", "ORDO_SERVER");

  /** A key refused: its name and why, one line. */
  public static final class SettingException extends IllegalArgumentException {
    public SettingException(String message) {
      super(message);
    }
  }

  private final Map<String, String> ordo;
  private final Map<String, String> streams;
  private final Map<String, String> kafka;

  private ServerSettings(Map<String, String> ordo, Map<String, String> streams, Map<String, String> kafka) {
    this.ordo = Collections.unmodifiableMap(ordo);
    this.streams = Collections.unmodifiableMap(streams);
    this.kafka = Collections.unmodifiableMap(kafka);
  }

  public static ServerSettings none() {
    return new ServerSettings(new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
  }

  /**
   * Checks every key and value of {@code raw} ({@code source} names where they came from in errors).
   *
   * @throws SettingException naming the first unknown key or invalid value
   */
  public static ServerSettings of(Map<String, String> raw, String source) {
    Map<String, String> ordo = new TreeMap<>();
    Map<String, String> streams = new TreeMap<>();
    Map<String, String> kafka = new TreeMap<>();
    for (Map.Entry<String, String> e : new TreeMap<>(raw).entrySet()) {
      String key = e.getKey().trim();
      String value = e.getValue().trim();
      if (key.startsWith("ordo.")) {
        checkOrdo(key, value, source);
        ordo.put(key, value);
      } else if (key.startsWith(STREAMS_PREFIX)) {
        checkStreams(key.substring(STREAMS_PREFIX.length()), value, key, source);
        streams.put(key.substring(STREAMS_PREFIX.length()), value);
      } else {
        checkKafka(key, value, source);
        kafka.put(key, value);
      }
    }
    return new ServerSettings(ordo, streams, kafka);
  }

  /** This, overridden key by key by {@code later}. */
  public ServerSettings with(ServerSettings later) {
    Map<String, String> o = new TreeMap<>(ordo);
    o.putAll(later.ordo);
    Map<String, String> s = new TreeMap<>(streams);
    s.putAll(later.streams);
    Map<String, String> k = new TreeMap<>(kafka);
    k.putAll(later.kafka);
    return new ServerSettings(o, s, k);
  }

  /** Reads a Java properties file (UTF-8). */
  public static Map<String, String> load(Path file) {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(in);
    } catch (NoSuchFileException e) {
      throw new SettingException("config file " + file + " does not exist");
    } catch (IOException | IllegalArgumentException e) {
      throw new SettingException("cannot read config file " + file + ": " + e.getMessage());
    }
    Map<String, String> out = new LinkedHashMap<>();
    p.stringPropertyNames().forEach(k -> out.put(k, p.getProperty(k)));
    return out;
  }

  /**
   * The settings among environment variables: {@code ORDO_} and a key in capitals with {@code _} for
   * {@code .}. Ordo's own keys drop their {@code ordo.} ({@code ORDO_LEASE_DEFAULT_MS} is
   * {@code ordo.lease.default.ms}); Kafka Streams keys are {@code ORDO_STREAMS_...}
   * ({@code ORDO_STREAMS_NUM_STANDBY_REPLICAS}); Kafka client keys are {@code ORDO_KAFKA_...}
   * ({@code ORDO_KAFKA_SASL_JAAS_CONFIG} is {@code sasl.jaas.config}). Kafka's and Ordo's keys have no
   * {@code _} of their own, so the mapping goes both ways. The launcher's and the CLI's variables
   * ({@code ORDO_JAVA_OPTS}, {@code ORDO_SKIP_BUILD}, {@code ORDO_SERVER}) are not settings.
   */
  public static Map<String, String> fromEnvironment(Map<String, String> env) {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : env.entrySet()) {
      String name = e.getKey();
      if (!name.startsWith("ORDO_") || NOT_SETTINGS.contains(name)) {
        continue;
      }
      out.put(keyOf(name), e.getValue());
    }
    return out;
  }

  /** The key an {@code ORDO_*} environment variable sets. */
  static String keyOf(String variable) {
    String rest = variable.substring("ORDO_".length()).toLowerCase(Locale.ROOT).replace('_', '.');
    if (rest.startsWith("kafka.")) {
      return rest.substring("kafka.".length());
    }
    if (rest.startsWith("streams.")) {
      return rest;
    }
    return "ordo." + rest;
  }

  /** The environment variable that sets {@code key}. */
  public static String variableOf(String key) {
    String name;
    if (key.startsWith("ordo.")) {
      name = key.substring("ordo.".length());
    } else if (key.startsWith(STREAMS_PREFIX)) {
      name = key;
    } else {
      name = "kafka." + key;
    }
    return "ORDO_" + name.toUpperCase(Locale.ROOT).replace('.', '_');
  }

  // ---- checks ----

  private static void checkOrdo(String key, String value, String source) {
    for (Section s : SECTIONS) {
      ConfigDef.ConfigKey k = s.def().configKeys().get(key);
      if (k != null) {
        check(k, key, value, source);
        return;
      }
    }
    throw new SettingException("unknown setting '" + key + "' (" + source + "); Ordo's keys are listed in"
        + " docs/running.md and by 'ordo server --list-settings'");
  }

  private static void checkStreams(String name, String value, String key, String source) {
    ConfigDef.ConfigKey k = StreamsConfig.configDef().configKeys().get(name);
    if (k != null) {
      check(k, key, value, source);
      return;
    }
    for (String prefix : List.of(StreamsConfig.MAIN_CONSUMER_PREFIX, StreamsConfig.RESTORE_CONSUMER_PREFIX,
        StreamsConfig.GLOBAL_CONSUMER_PREFIX, StreamsConfig.CONSUMER_PREFIX, StreamsConfig.PRODUCER_PREFIX,
        StreamsConfig.ADMIN_CLIENT_PREFIX, StreamsConfig.TOPIC_PREFIX)) {
      if (name.startsWith(prefix)) {
        String inner = name.substring(prefix.length());
        ConfigDef def = prefix.equals(StreamsConfig.PRODUCER_PREFIX) ? ProducerConfig.configDef()
            : prefix.equals(StreamsConfig.ADMIN_CLIENT_PREFIX) ? AdminClientConfig.configDef()
            : prefix.equals(StreamsConfig.TOPIC_PREFIX) ? null : ConsumerConfig.configDef();
        if (def == null) {
          return; // topic configs of the changelogs: the broker checks them
        }
        ConfigDef.ConfigKey ck = def.configKeys().get(inner);
        if (ck == null) {
          break;
        }
        check(ck, key, value, source);
        return;
      }
    }
    throw new SettingException("unknown setting '" + key + "' (" + source + "): '" + name
        + "' is not a Kafka Streams setting (see StreamsConfig)");
  }

  private static void checkKafka(String key, String value, String source) {
    for (ConfigDef def : List.of(AdminClientConfig.configDef(), ProducerConfig.configDef(), ConsumerConfig.configDef())) {
      ConfigDef.ConfigKey k = def.configKeys().get(key);
      if (k != null) {
        check(k, key, value, source);
        return;
      }
    }
    throw new SettingException("unknown setting '" + key + "' (" + source + "): not an Ordo key (ordo.*), a Kafka"
        + " Streams key (streams.*) nor a Kafka client setting");
  }

  private static void check(ConfigDef.ConfigKey k, String key, String value, String source) {
    try {
      Object parsed = ConfigDef.parseType(k.name, value, k.type);
      if (k.validator != null) {
        k.validator.ensureValid(k.name, parsed);
      }
    } catch (ConfigException e) {
      String why = e.getMessage() == null ? "" : e.getMessage().replaceAll("\\s+", " ");
      throw new SettingException("invalid value for '" + key + "' (" + source + "): " + why);
    }
  }

  // ---- use ----

  /** Kafka client settings for every client the server makes. */
  public Map<String, Object> kafkaClient() {
    return new LinkedHashMap<>(kafka);
  }

  /** Kafka Streams settings of the queue (without the {@code streams.} prefix). */
  public Map<String, Object> streams() {
    return new LinkedHashMap<>(streams);
  }

  /** The Ordo keys set that {@code def} defines. */
  public Map<String, Object> ordo(ConfigDef def) {
    Map<String, Object> out = new LinkedHashMap<>();
    ordo.forEach((k, v) -> {
      if (def.names().contains(k)) {
        out.put(k, v);
      }
    });
    return out;
  }

  /** An Ordo key's value if set. */
  public String ordo(String key) {
    return ordo.get(key);
  }

  /** Every key set, in file form ({@code streams.} prefixed), with secrets hidden. */
  public Map<String, String> describe() {
    Map<String, String> out = new TreeMap<>();
    ordo.forEach((k, v) -> out.put(k, ordoSecret(k) ? "[hidden]" : v));
    streams.forEach((k, v) -> out.put(STREAMS_PREFIX + k, secret(k) ? "[hidden]" : v));
    kafka.forEach((k, v) -> out.put(k, secret(k) ? "[hidden]" : v));
    return out;
  }

  /**
   * Every Ordo key with the value in force (set, or its default; the keys the server sets itself from
   * its flags left out) and every Kafka and Kafka Streams key set, secrets hidden: what start-up logs.
   */
  public Map<String, String> effective() {
    Map<String, String> out = new TreeMap<>();
    for (Section s : SECTIONS) {
      if (s.def() == SERVER) {
        continue;
      }
      for (ConfigDef.ConfigKey k : s.def().configKeys().values()) {
        if (!s.setByServer().contains(k.name)) {
          out.put(k.name, ordo.getOrDefault(k.name, k.hasDefault() && k.defaultValue != null
              ? String.valueOf(k.defaultValue) : ""));
        }
      }
    }
    out.putAll(describe());
    return out;
  }

  /** Whether an Ordo key's value is a secret: a PASSWORD in its ConfigDef. */
  static boolean ordoSecret(String key) {
    for (Section s : SECTIONS) {
      ConfigDef.ConfigKey k = s.def().configKeys().get(key);
      if (k != null && k.type == ConfigDef.Type.PASSWORD) {
        return true;
      }
    }
    return false;
  }

  /** Whether a Kafka key's value is a secret: a PASSWORD in Kafka's ConfigDefs, or a JAAS configuration. */
  static boolean secret(String key) {
    String name = key;
    for (String prefix : List.of("main.consumer.", "restore.consumer.", "global.consumer.", "consumer.", "producer.",
        "admin.")) {
      if (name.startsWith(prefix)) {
        name = name.substring(prefix.length());
      }
    }
    if (name.contains("password") || name.contains("jaas") || name.contains("secret") || name.endsWith(".key")) {
      return true;
    }
    for (ConfigDef def : List.of(AdminClientConfig.configDef(), ProducerConfig.configDef(), ConsumerConfig.configDef(),
        StreamsConfig.configDef())) {
      ConfigDef.ConfigKey k = def.configKeys().get(name);
      if (k != null && k.type == ConfigDef.Type.PASSWORD) {
        return true;
      }
    }
    return false;
  }

  // ---- docs ----

  /**
   * The settings section of docs/running.md, generated from the ConfigDefs: a table per section of
   * Ordo's keys with their environment variable, default and meaning.
   */
  public static String markdown() {
    StringBuilder b = new StringBuilder();
    Set<String> seen = new LinkedHashSet<>();
    for (Section s : SECTIONS) {
      List<ConfigDef.ConfigKey> keys = new ArrayList<>();
      for (ConfigDef.ConfigKey k : s.def().configKeys().values()) {
        if (!s.setByServer().contains(k.name) && seen.add(k.name)) {
          keys.add(k);
        }
      }
      if (keys.isEmpty()) {
        continue;
      }
      b.append("### ").append(s.title()).append("\n\n");
      b.append("| key | environment | default | meaning |\n| --- | --- | --- | --- |\n");
      for (ConfigDef.ConfigKey k : keys) {
        b.append("| `").append(k.name).append("` | `").append(variableOf(k.name)).append("` | ")
            .append(defaultText(k)).append(" | ").append(k.documentation == null ? "" : k.documentation
                .replace("|", "\\|").replaceAll("\\s+", " ").trim()).append(" |\n");
      }
      b.append("\n");
    }
    return b.toString();
  }

  private static String defaultText(ConfigDef.ConfigKey k) {
    if (!k.hasDefault() || k.defaultValue == null) {
      return "none";
    }
    String v = String.valueOf(k.defaultValue);
    if (k.defaultValue instanceof List<?> l) {
      v = String.join(",", l.stream().map(String::valueOf).toList());
    }
    return v.isEmpty() ? "(empty)" : "`" + v + "`";
  }
}
