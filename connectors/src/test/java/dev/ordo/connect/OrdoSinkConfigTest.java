package dev.ordo.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.client.QueueProducerConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class OrdoSinkConfigTest {
  private static Map<String, String> every() {
    Map<String, String> m = new HashMap<>();
    m.put("ordo.bootstrap.servers", "kafka:9092");
    m.put("ordo.cluster", "prod");
    m.put("ordo.namespace", "field:tenant");
    m.put("ordo.topic", "header:queue");
    m.put("ordo.priority", "5");
    m.put("ordo.delay", "PT30S");
    m.put("ordo.ttl", "600000");
    m.put("ordo.group.key", "field:order.customer.id");
    m.put("ordo.lease", "key:lease");
    m.put("ordo.max.attempts", "3");
    m.put("ordo.trace.id", "header:traceparent");
    m.put("ordo.dedup.id", "field:event_id");
    m.put("ordo.payload.format", "bytes");
    m.put("ordo.payload.max.bytes", "2048");
    m.put("ordo.headers", "traceparent,x-tenant");
    m.put("ordo.headers.max.bytes", "1024");
    m.put("ordo.backpressure", "false");
    m.put("ordo.kafka.linger.ms", "20");
    m.put("ordo.kafka.security.protocol", "SSL");
    return m;
  }

  @Test
  void everyKeyIsDefinedAndReachesTheProducer() {
    Map<String, String> props = every();
    OrdoSinkConfig config = new OrdoSinkConfig(props);
    for (String key : props.keySet()) {
      if (!key.startsWith(OrdoSinkConfig.KAFKA_PREFIX)) {
        assertTrue(OrdoSinkConfig.configDef().names().contains(key), key);
      }
    }
    Map<String, Object> producer = config.producerSettings();
    assertEquals("kafka:9092", producer.get("bootstrap.servers"));
    assertEquals("prod", producer.get(QueueProducerConfig.CLUSTER_CONFIG));
    assertEquals(2048, producer.get(QueueProducerConfig.PAYLOAD_MAX_BYTES_CONFIG));
    assertEquals(1024, producer.get(QueueProducerConfig.HEADERS_MAX_BYTES_CONFIG),
        "the producer checks the limit the mapper checks");
    assertEquals(false, producer.get(QueueProducerConfig.BACKPRESSURE_CONFIG));
    assertEquals("20", producer.get("linger.ms"));
    assertEquals("SSL", producer.get("security.protocol"));
    new QueueProducerConfig(producer); // the producer accepts them
  }

  @Test
  void everyKeyIsInTheSettingsTableOfTheGuide() throws Exception {
    String guide = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "connectors.md"));
    for (String key : OrdoSinkConfig.configDef().names()) {
      assertTrue(guide.contains("| `" + key + "` |"), key + " is missing from docs/connectors.md");
    }
    assertTrue(guide.contains("| `" + OrdoSinkConfig.KAFKA_PREFIX + "<key>` |"));
  }

  @Test
  void badSettingsNameTheirKey() {
    Map<String, String> noNamespace = every();
    noNamespace.remove("ordo.namespace");
    assertTrue(assertThrows(ConfigException.class, () -> new OrdoSinkConfig(noNamespace)).getMessage()
        .contains("ordo.namespace"));
    assertBad("ordo.priority", "high", "'high' is not an integer");
    assertBad("ordo.max.attempts", "1.5", "1.5");
    assertBad("ordo.ttl", "PT", "not an ISO-8601 duration");
    assertBad("ordo.dedup.id", "same-for-all", "must come from the record");
    assertBad("ordo.group.key", "field:", "a field path is missing");
    assertBad("ordo.topic", "field:order..id", "empty part");
    assertBad("ordo.namespace", "header:", "a header name is missing");
    assertBad("ordo.namespace", "a/b", "contains a '/'");
    assertBad("ordo.payload.format", "avro", "ordo.payload.format");
    assertBad("ordo.deliver.after", "2026-11-25T22:00:00Z", "set ordo.delay or ordo.deliver.after, not both");
    assertBad("ordo.headers", "", "use all, none or a comma-separated list");
    assertBad("ordo.headers", "traceparent,all", "'all' stands alone");
    assertBad("ordo.headers", "a,,b", "a header name in the list is empty");
    assertBad("ordo.headers", "tenant,ordo.redriven.from", "header name 'ordo.redriven.from' is reserved");
    assertBad("ordo.headers.max.bytes", "-1", "ordo.headers.max.bytes");
  }

  @Test
  void headersDefaultToAllWithinTheProducersLimit() {
    Map<String, String> props = every();
    props.remove("ordo.headers");
    props.remove("ordo.headers.max.bytes");
    OrdoSinkConfig config = new OrdoSinkConfig(props);
    assertEquals(List.of("all"), config.getList("ordo.headers"));
    assertEquals(8192, config.producerSettings().get(QueueProducerConfig.HEADERS_MAX_BYTES_CONFIG));
    assertEquals(new QueueProducerConfig(Map.of("bootstrap.servers", "k:9092")).headersMaxBytes(), 8192);
    props.put("ordo.headers", " NONE ");
    assertEquals(List.of("NONE"), new OrdoSinkConfig(props).getList("ordo.headers"));
    new OrdoSinkConfig(props).mapper();
  }

  private static void assertBad(String key, String value, String reason) {
    Map<String, String> props = every();
    props.put(key, value);
    ConfigException e = assertThrows(ConfigException.class, () -> new OrdoSinkConfig(props));
    assertTrue(e.getMessage().contains(key) && e.getMessage().contains(reason), e.getMessage());
  }

  @Test
  void connectorValidationReportsEachBadKeyOnItsOwnEntry() {
    Map<String, String> props = every();
    props.put("ordo.priority", "high");
    props.put("ordo.deliver.after", "field:due");
    Config result = new OrdoSinkConnector().validate(props);
    Map<String, List<String>> errors = result.configValues().stream().filter(v -> !v.errorMessages().isEmpty())
        .collect(Collectors.toMap(ConfigValue::name, ConfigValue::errorMessages));
    assertEquals(Map.of("ordo.priority", 1, "ordo.deliver.after", 1),
        errors.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().size())), errors.toString());
    assertTrue(errors.get("ordo.priority").get(0).contains("'high' is not an integer"));
    assertTrue(errors.get("ordo.deliver.after").get(0).contains("not both"));
  }
}
