package dev.ordo.connect;

import dev.ordo.api.ItemHeaders;
import dev.ordo.client.QueueProducerConfig;
import dev.ordo.connect.internal.FieldSource;
import dev.ordo.connect.internal.HeaderSelection;
import dev.ordo.connect.internal.ItemField;
import dev.ordo.connect.internal.PayloadFormat;
import dev.ordo.connect.internal.RecordMapper;
import dev.ordo.connect.internal.SettingNames;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Settings of {@link OrdoSinkConnector}. Each item field is set by one key whose value is a source:
 * {@code field:<dotted.path>} (a field of the record value, through nested structs and maps),
 * {@code key:<path>} (of the record key), {@code header:<name>}, or a constant ({@code const:} before a
 * constant that would look like a source). Bad settings fail with a {@link ConfigException} naming the key.
 */
public final class OrdoSinkConfig extends AbstractConfig {
  private static final String SOURCE_SYNTAX = " Value: field:<path> (record value, nested with dots), key:<path>,"
      + " header:<name>, or a constant.";

  public static final String BOOTSTRAP_SERVERS_CONFIG = "ordo.bootstrap.servers";
  public static final String BOOTSTRAP_SERVERS_DOC = "The Kafka cluster Ordo's topics live on (host:port,...), which"
      + " need not be the one the worker reads from.";

  public static final String CLUSTER_CONFIG = QueueProducerConfig.CLUSTER_CONFIG;
  public static final String CLUSTER_DOC = "The Ordo cluster to enqueue into: items go to <cluster>.items.";

  public static final String NAMESPACE_CONFIG = SettingNames.NAMESPACE;
  public static final String NAMESPACE_DOC = "The item's namespace (required). A record without it is a bad record."
      + SOURCE_SYNTAX;
  public static final String TOPIC_CONFIG = SettingNames.TOPIC;
  public static final String TOPIC_DOC = "The item's topic, the queue inside the namespace (required). A record"
      + " without it is a bad record." + SOURCE_SYNTAX;
  public static final String PRIORITY_CONFIG = SettingNames.PRIORITY;
  public static final String PRIORITY_DOC = "The item's priority, an int, lower is sooner; unset or absent: 0."
      + SOURCE_SYNTAX;
  public static final String DELAY_CONFIG = SettingNames.DELAY;
  public static final String DELAY_DOC = "Delay from the enqueue before the item is delivered: milliseconds or"
      + " ISO-8601 (PT30S). Unset or absent: at once. Excludes " + "ordo.deliver.after." + SOURCE_SYNTAX;
  public static final String DELIVER_AFTER_CONFIG = SettingNames.DELIVER_AFTER;
  public static final String DELIVER_AFTER_DOC = "Due time: epoch milliseconds, a Connect Timestamp or ISO-8601"
      + " (2026-11-25T22:00:00Z). Unset or absent: at once. Excludes ordo.delay." + SOURCE_SYNTAX;
  public static final String TTL_CONFIG = SettingNames.TTL;
  public static final String TTL_DOC = "Time to live (milliseconds or ISO-8601); unset or absent: the namespace"
      + " default." + SOURCE_SYNTAX;
  public static final String GROUP_KEY_CONFIG = SettingNames.GROUP_KEY;
  public static final String GROUP_KEY_DOC = "Fairness group of the item (its items share a partition and are served"
      + " round-robin with other groups); unset or absent: none." + SOURCE_SYNTAX;
  public static final String LEASE_CONFIG = SettingNames.LEASE;
  public static final String LEASE_DOC = "Lease duration of a delivery (milliseconds or ISO-8601); unset or absent:"
      + " the namespace default." + SOURCE_SYNTAX;
  public static final String MAX_ATTEMPTS_CONFIG = SettingNames.MAX_ATTEMPTS;
  public static final String MAX_ATTEMPTS_DOC = "Deliveries before a failed item is dead-lettered; unset or absent:"
      + " the namespace default." + SOURCE_SYNTAX;
  public static final String TRACE_ID_CONFIG = SettingNames.TRACE_ID;
  public static final String TRACE_ID_DOC = "A trace or request id carried with the item; unset or absent: none."
      + SOURCE_SYNTAX;

  public static final String DEDUP_ID_CONFIG = SettingNames.DEDUP_ID;
  public static final String DEDUP_ID_DOC = "The item's deduplication ID (decisions D57): the queue refuses an item"
      + " whose ID (of the same namespace, topic and group key) it took in within the namespace's window"
      + " (dedupWindowMs, 5 minutes by default), so records a restarted task sends again are not enqueued twice."
      + " Map it to something unique per source record (an event id field, or a header). 1 to 128 printable ASCII"
      + " characters; anything else makes a bad record. Unset or absent: none." + SOURCE_SYNTAX;

  public static final String PAYLOAD_FORMAT_CONFIG = SettingNames.PAYLOAD_FORMAT;
  public static final String PAYLOAD_FORMAT_DOC = "How the record value (as the worker's value.converter made it)"
      + " becomes the payload. json: bytes and strings as they are, anything else (struct, map, array, number)"
      + " as schemaless JSON (Connect's JsonConverter). bytes: only bytes or string values (e.g. with"
      + " ByteArrayConverter), others are bad records. A record without a value (tombstone) is a bad record.";
  public static final String PAYLOAD_MAX_BYTES_CONFIG = SettingNames.PAYLOAD_MAX_BYTES;
  public static final String PAYLOAD_MAX_BYTES_DOC = "Largest payload; a record whose payload is larger is a bad"
      + " record. Keep it at or below the queue's own ordo.payload.max.bytes (10 KiB by default), which"
      + " dead-letters larger items in the queue instead.";
  public static final String HEADERS_CONFIG = SettingNames.HEADERS;
  public static final String HEADERS_DOC = "Which Kafka headers of the record the item keeps (delivered with it on"
      + " every lease, like the headers a producer sets): all, none, or a comma-separated list of header names"
      + " (case-sensitive). Kept in the record's order, repeated names included; headers also read by a header:"
      + " source are kept too. Names starting with '" + ItemHeaders.RESERVED_PREFIX + "' are Ordo's own and"
      + " never kept (skipped silently; listing one is a configuration error), nor are empty names. Values as"
      + " the worker's header.converter made them: bytes as they are, strings as UTF-8, null as null, anything"
      + " else (numbers, booleans, structs, maps, arrays) as the UTF-8 text Connect's Values.convertToString"
      + " writes (what the default SimpleHeaderConverter writes back to Kafka). Kept headers over "
      + "ordo.headers.max.bytes make a bad record.";
  public static final String HEADERS_MAX_BYTES_CONFIG = SettingNames.HEADERS_MAX_BYTES;
  public static final String HEADERS_MAX_BYTES_DOC = "Largest total size of the headers an item keeps (every"
      + " name's UTF-8 bytes plus every value's bytes); a record whose kept headers are larger is a bad record."
      + " Keep it at or below the queue's own ordo.headers.max.bytes (8 KiB by default), which dead-letters"
      + " larger items in the queue instead.";
  public static final String BACKPRESSURE_CONFIG = "ordo.backpressure";
  public static final String BACKPRESSURE_DOC = "Honour the namespace policies' maxBacklog: an enqueue to a full"
      + " namespace waits up to max.block.ms (ordo.kafka.max.block.ms), then fails; the task then retries from"
      + " its last committed offsets. false: items over the backlog wait in the queue's OVERFLOW state.";
  /** Keys after this prefix are Kafka producer settings of the items producer (security, linger.ms...). */
  public static final String KAFKA_PREFIX = "ordo.kafka.";

  static final ConfigDef CONFIG = new ConfigDef()
      .define(BOOTSTRAP_SERVERS_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(),
          Importance.HIGH, BOOTSTRAP_SERVERS_DOC)
      .define(CLUSTER_CONFIG, Type.STRING, "ordo", new ConfigDef.NonEmptyString(), Importance.HIGH, CLUSTER_DOC)
      .define(NAMESPACE_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, source(ItemField.NAMESPACE),
          Importance.HIGH, NAMESPACE_DOC)
      .define(TOPIC_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, source(ItemField.TOPIC), Importance.HIGH,
          TOPIC_DOC)
      .define(PRIORITY_CONFIG, Type.STRING, null, source(ItemField.PRIORITY), Importance.MEDIUM, PRIORITY_DOC)
      .define(DELAY_CONFIG, Type.STRING, null, source(ItemField.DELAY), Importance.MEDIUM, DELAY_DOC)
      .define(DELIVER_AFTER_CONFIG, Type.STRING, null, source(ItemField.DELIVER_AFTER), Importance.MEDIUM,
          DELIVER_AFTER_DOC)
      .define(TTL_CONFIG, Type.STRING, null, source(ItemField.TTL), Importance.MEDIUM, TTL_DOC)
      .define(GROUP_KEY_CONFIG, Type.STRING, null, source(ItemField.GROUP_KEY), Importance.MEDIUM, GROUP_KEY_DOC)
      .define(LEASE_CONFIG, Type.STRING, null, source(ItemField.LEASE), Importance.LOW, LEASE_DOC)
      .define(MAX_ATTEMPTS_CONFIG, Type.STRING, null, source(ItemField.MAX_ATTEMPTS), Importance.LOW,
          MAX_ATTEMPTS_DOC)
      .define(TRACE_ID_CONFIG, Type.STRING, null, source(ItemField.TRACE_ID), Importance.LOW, TRACE_ID_DOC)
      .define(DEDUP_ID_CONFIG, Type.STRING, null, source(ItemField.DEDUP_ID), Importance.MEDIUM, DEDUP_ID_DOC)
      .define(PAYLOAD_FORMAT_CONFIG, Type.STRING, "json",
          ConfigDef.CaseInsensitiveValidString.in("json", "bytes"), Importance.MEDIUM, PAYLOAD_FORMAT_DOC)
      .define(PAYLOAD_MAX_BYTES_CONFIG, Type.INT, 10 * 1024, Range.atLeast(0), Importance.MEDIUM,
          PAYLOAD_MAX_BYTES_DOC)
      .define(HEADERS_CONFIG, Type.LIST, "all", headerSelection(), Importance.MEDIUM, HEADERS_DOC)
      .define(HEADERS_MAX_BYTES_CONFIG, Type.INT, 8 * 1024, Range.atLeast(0), Importance.MEDIUM,
          HEADERS_MAX_BYTES_DOC)
      .define(BACKPRESSURE_CONFIG, Type.BOOLEAN, true, Importance.LOW, BACKPRESSURE_DOC);

  public OrdoSinkConfig(Map<String, ?> props) {
    super(CONFIG, props);
    String both = bothDelays(getString(DELAY_CONFIG), getString(DELIVER_AFTER_CONFIG));
    if (both != null) {
      throw new ConfigException(DELIVER_AFTER_CONFIG, getString(DELIVER_AFTER_CONFIG), both);
    }
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  /** The reason a delay and a due time cannot both be set, or null. */
  static String bothDelays(String delay, String deliverAfter) {
    return delay != null && deliverAfter != null
        ? "set " + DELAY_CONFIG + " or " + DELIVER_AFTER_CONFIG + ", not both" : null;
  }

  /** The mapper these settings describe. */
  public RecordMapper mapper() {
    Map<ItemField, FieldSource> sources = new EnumMap<>(ItemField.class);
    for (ItemField f : ItemField.values()) {
      String spec = getString(f.key());
      if (spec != null) {
        try {
          sources.put(f, FieldSource.parse(spec));
        } catch (FieldSource.InvalidSource e) {
          throw new ConfigException(f.key(), spec, e.getMessage()); // the validator refused it already
        }
      }
    }
    return new RecordMapper(sources,
        PayloadFormat.valueOf(getString(PAYLOAD_FORMAT_CONFIG).toUpperCase(Locale.ROOT)),
        getInt(PAYLOAD_MAX_BYTES_CONFIG), headerSelection(getList(HEADERS_CONFIG)), getInt(HEADERS_MAX_BYTES_CONFIG));
  }

  /** The headers the items keep; the validator refused a bad list already. */
  private static HeaderSelection headerSelection(List<String> setting) {
    try {
      return HeaderSelection.parse(setting);
    } catch (FieldSource.InvalidSource e) {
      throw new ConfigException(HEADERS_CONFIG, setting, e.getMessage());
    }
  }

  /** The {@link QueueProducerConfig} settings of the task's producer. */
  public Map<String, Object> producerSettings() {
    Map<String, Object> p = new HashMap<>(originalsWithPrefix(KAFKA_PREFIX));
    p.put("bootstrap.servers", getString(BOOTSTRAP_SERVERS_CONFIG));
    p.put(QueueProducerConfig.CLUSTER_CONFIG, getString(CLUSTER_CONFIG));
    p.put(QueueProducerConfig.PAYLOAD_MAX_BYTES_CONFIG, getInt(PAYLOAD_MAX_BYTES_CONFIG));
    p.put(QueueProducerConfig.HEADERS_MAX_BYTES_CONFIG, getInt(HEADERS_MAX_BYTES_CONFIG));
    p.put(QueueProducerConfig.BACKPRESSURE_CONFIG, getBoolean(BACKPRESSURE_CONFIG));
    return p;
  }

  /** Refuses an ordo.headers list that is empty, mixes all/none with names, or names a reserved header. */
  private static ConfigDef.Validator headerSelection() {
    return new ConfigDef.Validator() {
      @Override
      @SuppressWarnings("unchecked")
      public void ensureValid(String name, Object value) {
        headerSelection((List<String>) value);
      }

      @Override
      public String toString() {
        return "all, none, or a comma-separated list of header names";
      }
    };
  }

  /** Refuses a setting that is no valid source, or a constant that is not of the field's type. */
  private static ConfigDef.Validator source(ItemField field) {
    return new ConfigDef.Validator() {
      @Override
      public void ensureValid(String name, Object value) {
        if (value == null) {
          return; // required keys: ConfigDef itself reports the missing value
        }
        FieldSource parsed;
        try {
          parsed = FieldSource.parse((String) value);
        } catch (FieldSource.InvalidSource e) {
          throw new ConfigException(name, value, e.getMessage());
        }
        if (parsed instanceof FieldSource.Constant && field == ItemField.DEDUP_ID) {
          // Every record would carry the same ID: all but one a window would be refused as duplicates.
          throw new ConfigException(name, value, "a deduplication ID must come from the record (field:, key: or"
              + " header:), not a constant");
        }
        if (parsed instanceof FieldSource.Constant c) {
          String wrong = field.checkConstant(c.value());
          if (wrong != null) {
            throw new ConfigException(name, value, wrong);
          }
        }
      }

      @Override
      public String toString() {
        return "field:<path>, key:<path>, header:<name> or a constant";
      }
    };
  }
}
