package dev.ordo.connect;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * A Kafka Connect sink that tails any topic into an Ordo queue: each record becomes an item whose
 * namespace, topic, priority, delay or due time, TTL, group key, lease and max attempts come from
 * constants, record fields or headers ({@link OrdoSinkConfig}), and which keeps the record's Kafka
 * headers ({@code ordo.headers}). Delivery is at least once
 * ({@link OrdoSinkTask}). See docs/connectors.md.
 */
public final class OrdoSinkConnector extends SinkConnector {
  static final String VERSION = versionOf();

  private Map<String, String> props;

  @Override
  public String version() {
    return VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    new OrdoSinkConfig(props); // fail the connector, not only its tasks, on bad settings
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return OrdoSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>(maxTasks);
    for (int i = 0; i < maxTasks; i++) {
      Map<String, String> task = new HashMap<>(props);
      task.putIfAbsent(OrdoSinkConfig.KAFKA_PREFIX + "client.id",
          "ordo-sink-" + props.getOrDefault("name", "connector") + "-" + i);
      configs.add(task);
    }
    return configs;
  }

  @Override
  public void stop() {
  }

  @Override
  public ConfigDef config() {
    return OrdoSinkConfig.configDef();
  }

  /** ConfigDef's checks per key, plus the one across keys: a delay and a due time exclude each other. */
  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config config = super.validate(connectorConfigs);
    String both = OrdoSinkConfig.bothDelays(connectorConfigs.get(OrdoSinkConfig.DELAY_CONFIG),
        connectorConfigs.get(OrdoSinkConfig.DELIVER_AFTER_CONFIG));
    if (both != null) {
      for (ConfigValue v : config.configValues()) {
        if (v.name().equals(OrdoSinkConfig.DELIVER_AFTER_CONFIG)) {
          v.addErrorMessage(both);
        }
      }
    }
    return config;
  }

  private static String versionOf() {
    String v = OrdoSinkConnector.class.getPackage().getImplementationVersion();
    return v == null ? "unknown" : v;
  }
}
