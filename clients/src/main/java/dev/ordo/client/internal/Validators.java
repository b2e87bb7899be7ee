package dev.ordo.client.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Names;
import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** ConfigDef validators shared by the client configurations. */
public final class Validators {
  private Validators() {}

  public static ConfigDef.Validator cluster() {
    return (name, value) -> {
      try {
        new ClusterTopics((String) value);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, value, e.getMessage());
      }
    };
  }

  /** Empty (meaning: generate one) or up to 100 letters, digits, '.', '_' or '-'. */
  public static ConfigDef.Validator optionalId() {
    return (name, value) -> {
      if (value != null && !((String) value).matches("[A-Za-z0-9._-]{0,100}")) {
        throw new ConfigException(name, value, "want up to 100 letters, digits, '.', '_' or '-'");
      }
    };
  }

  public static ConfigDef.Validator name(String field) {
    return (name, value) -> {
      String problem = Names.problem(field, (String) value);
      if (problem != null) {
        throw new ConfigException(name, value, problem);
      }
    };
  }

  public static ConfigDef.Validator nonEmpty() {
    return (name, value) -> {
      if (value == null || ((String) value).isBlank()) {
        throw new ConfigException(name, value, "must be set");
      }
    };
  }

  /** A non-empty list of topic names, or {@code *} for any topic of the namespace. */
  public static ConfigDef.Validator topics() {
    return (name, value) -> {
      @SuppressWarnings("unchecked")
      List<String> list = (List<String>) value;
      if (list == null || list.isEmpty()) {
        throw new ConfigException(name, value, "name at least one topic, or * for any topic of the namespace");
      }
      for (String topic : list) {
        String problem = "*".equals(topic) ? null : Names.problem("topic", topic);
        if (problem != null) {
          throw new ConfigException(name, value, problem);
        }
      }
      if (list.contains("*") && list.size() > 1) {
        throw new ConfigException(name, value, "* already means every topic of the namespace; list no others");
      }
    };
  }
}
