package dev.ordo.connect.internal;

import dev.ordo.client.EnqueueRequest;
import dev.ordo.connect.internal.Values.WrongType;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BiConsumer;

/** The item fields a sink maps, each with its setting, its type and where it goes in the request. */
public enum ItemField {
  // namespace and topic are set by the builder's factory
  NAMESPACE(SettingNames.NAMESPACE, true, v -> checkedName("namespace", Values.text(v)), (b, v) -> { }),
  TOPIC(SettingNames.TOPIC, true, v -> checkedName("topic", Values.text(v)), (b, v) -> { }),
  PRIORITY(SettingNames.PRIORITY, false, Values::integer, (b, v) -> b.priority((Integer) v)),
  DELAY(SettingNames.DELAY, false, Values::duration, (b, v) -> b.delay((Duration) v)),
  DELIVER_AFTER(SettingNames.DELIVER_AFTER, false, Values::instant, (b, v) -> b.deliverAfter((Instant) v)),
  TTL(SettingNames.TTL, false, Values::duration, (b, v) -> b.ttl((Duration) v)),
  GROUP_KEY(SettingNames.GROUP_KEY, false, v -> checkedName("groupKey", Values.text(v)),
      (b, v) -> b.groupKey((String) v)),
  LEASE(SettingNames.LEASE, false, Values::duration, (b, v) -> b.lease((Duration) v)),
  MAX_ATTEMPTS(SettingNames.MAX_ATTEMPTS, false, Values::integer, (b, v) -> b.maxAttempts((Integer) v)),
  TRACE_ID(SettingNames.TRACE_ID, false, Values::text, (b, v) -> b.traceId((String) v)),
  DEDUP_ID(SettingNames.DEDUP_ID, false, v -> checkedDedupId(Values.text(v)), (b, v) -> b.dedupId((String) v));

  /** Converts a mapped value to a field's type, or says why it can't. */
  @FunctionalInterface
  interface Conversion {
    Object convert(Object v) throws WrongType;
  }

  private final String key;
  private final boolean required;
  private final Conversion conversion;
  private final BiConsumer<EnqueueRequest.Builder, Object> setter;

  ItemField(String key, boolean required, Conversion conversion, BiConsumer<EnqueueRequest.Builder, Object> setter) {
    this.key = key;
    this.required = required;
    this.conversion = conversion;
    this.setter = setter;
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
  Object convert(Object v) throws WrongType {
    return conversion.convert(v);
  }

  void apply(EnqueueRequest.Builder b, Object converted) {
    setter.accept(b, converted);
  }

  private static String checkedName(String field, String text) throws WrongType {
    String problem = dev.ordo.api.Names.problem(field, text);
    if (problem != null) {
      throw new WrongType(problem);
    }
    return text;
  }

  private static String checkedDedupId(String text) throws WrongType {
    String problem = dev.ordo.api.Dedup.problem("dedupId", text);
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
