package dev.ordo.connect.internal;

import dev.ordo.client.EnqueueRequest;
import dev.ordo.connect.OrdoSinkConfig;
import dev.ordo.connect.internal.Values.WrongType;
import java.time.Duration;
import java.time.Instant;

/** The item fields a sink maps, each with its setting, its type and where it goes in the request. */
public enum ItemField {
  NAMESPACE(OrdoSinkConfig.NAMESPACE_CONFIG, true) {
    @Override
    Object convert(Object v) throws WrongType {
      return checkedName("namespace", Values.text(v));
    }

    @Override
    void apply(EnqueueRequest.Builder b, Object v) {
      // set by the builder's factory
    }
  },
  TOPIC(OrdoSinkConfig.TOPIC_CONFIG, true) {
    @Override
    Object convert(Object v) throws WrongType {
      return checkedName("topic", Values.text(v));
    }

    @Override
    void apply(EnqueueRequest.Builder b, Object v) {
      // set by the builder's factory
    }
  },
  PRIORITY(OrdoSinkConfig.PRIORITY_CONFIG, false) {
    @Override
    Object convert(Object v) throws WrongType {
      return Values.integer(v);
    }

    @Override
    void apply(EnqueueRequest.Builder b, Object v) {
      b.priority((Integer) v);
    }
  },
  DELAY(OrdoSinkConfig.DELAY_CONFIG, false) {
    @Override
    Object convert(Object v) throws WrongType {
      return Values.duration(v);
    }

    @Override
    void apply(EnqueueRequest.Builder b, Object v) {
      b.delay((Duration) v);
    }
  },
  DELIVER_AFTER(OrdoSinkConfig.DELIVER_AFTER_CONFIG, false) {
    @Override
    Object convert(Object v) throws WrongType {
      return Values.instant(v);
    }

    @Override
    void apply(EnqueueRequest.Builder b, Object v) {
      b.deliverAfter((Instant) v);
    }
  },
  TTL(OrdoSinkConfig.TTL_CONFIG, false) {
    @Override
    Object convert(Object v) throws WrongType {
      return Values.duration(v);
    }

    @Override
    void apply(EnqueueRequest.Builder b, Object v) {
      b.ttl((Duration) v);
    }
  },
  GROUP_KEY(OrdoSinkConfig.GROUP_KEY_CONFIG, false) {
    @Override
    Object convert(Object v) throws WrongType {
      return checkedName("groupKey", Values.text(v));
    }

    @Override
    void apply(EnqueueRequest.Builder b, Object v) {
      b.groupKey((String) v);
    }
  },
  LEASE(OrdoSinkConfig.LEASE_CONFIG, false) {
    @Override
    Object convert(Object v) throws WrongType {
      return Values.duration(v);
    }

    @Override
    void apply(EnqueueRequest.Builder b, Object v) {
      b.lease((Duration) v);
    }
  },
  MAX_ATTEMPTS(OrdoSinkConfig.MAX_ATTEMPTS_CONFIG, false) {
    @Override
    Object convert(Object v) throws WrongType {
      return Values.integer(v);
    }

    @Override
    void apply(EnqueueRequest.Builder b, Object v) {
      b.maxAttempts((Integer) v);
    }
  },
  TRACE_ID(OrdoSinkConfig.TRACE_ID_CONFIG, false) {
    @Override
    Object convert(Object v) throws WrongType {
      return Values.text(v);
    }

    @Override
    void apply(EnqueueRequest.Builder b, Object v) {
      b.traceId((String) v);
    }
  };

  private final String key;
  private final boolean required;

  ItemField(String key, boolean required) {
    this.key = key;
    this.required = required;
  }

  /** The connector setting that says where this field comes from. */
  public String key() {
    return key;
  }

  /** Whether a record without this field is a bad record (otherwise the queue's default applies). */
  public boolean required() {
    return required;
  }

  /** The value in the field's type (Integer, Duration, Instant or String). */
  abstract Object convert(Object v) throws WrongType;

  abstract void apply(EnqueueRequest.Builder b, Object converted);

  private static String checkedName(String field, String text) throws WrongType {
    String problem = dev.ordo.api.Names.problem(field, text);
    if (problem != null) {
      throw new WrongType(problem);
    }
    return text;
  }

  /** Checks a constant setting at configuration time; the reason, or null when it converts. */
  public String checkConstant(Object constant) {
    try {
      convert(constant);
      return null;
    } catch (WrongType e) {
      return e.getMessage();
    }
  }
}
