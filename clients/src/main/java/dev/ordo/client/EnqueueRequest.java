package dev.ordo.client;

import dev.ordo.api.ItemHeaders;
import dev.ordo.api.Names;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * One item to enqueue. Build with {@link #builder(String, String, byte[])}; {@link Builder#build()}
 * checks every field and throws an {@link IllegalArgumentException} that names the bad one. Unset
 * optional fields take the namespace's defaults in the queue (lease, TTL, max attempts,
 * at-least-once).
 */
public final class EnqueueRequest {
  private final String namespace;
  private final String topic;
  private final int priority;
  private final byte[] payload;
  private final byte[] metadata;
  private final Duration delay;
  private final Instant deliverAfter;
  private final Duration lease;
  private final Duration ttl;
  private final Semantics semantics;
  private final Integer maxAttempts;
  private final String groupKey;
  private final String traceId;
  private final String dedupId;
  private final ItemHeaders headers;

  private EnqueueRequest(Builder b) {
    this.namespace = b.namespace;
    this.topic = b.topic;
    this.priority = b.priority;
    this.payload = b.payload;
    this.metadata = b.metadata;
    this.delay = b.delay;
    this.deliverAfter = b.deliverAfter;
    this.lease = b.lease;
    this.ttl = b.ttl;
    this.semantics = b.semantics;
    this.maxAttempts = b.maxAttempts;
    this.groupKey = b.groupKey;
    this.traceId = b.traceId;
    this.dedupId = b.dedupId;
    this.headers = b.headers == null ? ItemHeaders.EMPTY : b.headers.build();
  }

  /** A request for {@code payload} on {@code topic} of {@code namespace}; the payload is not copied. */
  public static Builder builder(String namespace, String topic, byte[] payload) {
    return new Builder(namespace, topic, payload);
  }

  public String namespace() {
    return namespace;
  }

  public String topic() {
    return topic;
  }

  /** Lower is sooner; the whole int range. */
  public int priority() {
    return priority;
  }

  public byte[] payload() {
    return payload;
  }

  /** Null when not set. */
  public byte[] metadata() {
    return metadata;
  }

  /** Null when not set; relative to the moment the producer sends the item. */
  public Duration delay() {
    return delay;
  }

  /** Null when not set. */
  public Instant deliverAfter() {
    return deliverAfter;
  }

  /** Null: the namespace default. */
  public Duration lease() {
    return lease;
  }

  /** Null: the namespace default. */
  public Duration ttl() {
    return ttl;
  }

  /** Null: at-least-once (the namespace default). */
  public Semantics semantics() {
    return semantics;
  }

  /** Null: the namespace default. */
  public Integer maxAttempts() {
    return maxAttempts;
  }

  /** Null when not set; items of one group key share a partition and a fairness group. */
  public String groupKey() {
    return groupKey;
  }

  public String traceId() {
    return traceId;
  }

  /**
   * The deduplication ID, or null (decisions D57): the queue refuses this item when an item with the
   * same ID (of the same namespace, topic and group key) was taken in within the namespace's window
   * ({@code dedupWindowMs}, 5 minutes by default).
   */
  public String dedupId() {
    return dedupId;
  }

  /**
   * The headers put on the item's Kafka record and kept with the item (delivered with it on every
   * lease, on the dead-letter topic, ...); {@link ItemHeaders#EMPTY} when none.
   */
  public ItemHeaders headers() {
    return headers;
  }

  /** The absolute time before which the item must not be delivered, or null for at once. */
  Long deliverAfterMs(long now) {
    if (deliverAfter != null) {
      return deliverAfter.toEpochMilli();
    }
    if (delay != null && !delay.isZero()) {
      return now + delay.toMillis();
    }
    return null;
  }

  @Override
  public String toString() {
    return "EnqueueRequest{" + namespace + "/" + topic + ", priority " + priority + ", " + payload.length + " bytes"
        + (groupKey == null ? "" : ", group " + groupKey) + (dedupId == null ? "" : ", dedup " + dedupId) + "}";
  }

  /** Builds an {@link EnqueueRequest}; every setter returns the builder. */
  public static final class Builder {
    private final String namespace;
    private final String topic;
    private final byte[] payload;
    private int priority;
    private byte[] metadata;
    private Duration delay;
    private Instant deliverAfter;
    private Duration lease;
    private Duration ttl;
    private Semantics semantics;
    private Integer maxAttempts;
    private String groupKey;
    private String traceId;
    private String dedupId;
    private ItemHeaders.Builder headers;

    private Builder(String namespace, String topic, byte[] payload) {
      this.namespace = namespace;
      this.topic = topic;
      this.payload = payload;
    }

    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    public Builder metadata(byte[] metadata) {
      this.metadata = metadata;
      return this;
    }

    /** Not delivered before {@code delay} from the send; excludes {@link #deliverAfter(Instant)}. */
    public Builder delay(Duration delay) {
      this.delay = delay;
      return this;
    }

    /** Not delivered before {@code time}; excludes {@link #delay(Duration)}. */
    public Builder deliverAfter(Instant time) {
      this.deliverAfter = time;
      return this;
    }

    /** How long a consumer holds the item before it is redelivered, unless it extends the lease. */
    public Builder lease(Duration lease) {
      this.lease = lease;
      return this;
    }

    /** Time to live from enqueue, in any state; then deleted (or dead-lettered, per the queue's setting). */
    public Builder ttl(Duration ttl) {
      this.ttl = ttl;
      return this;
    }

    public Builder semantics(Semantics semantics) {
      this.semantics = semantics;
      return this;
    }

    /** Shorthand for {@code semantics(AT_MOST_ONCE)}: a lease that runs out deletes the item. */
    public Builder atMostOnce() {
      return semantics(Semantics.AT_MOST_ONCE);
    }

    /** Deliveries before a failure sends the item to the dead-letter topic. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    public Builder groupKey(String groupKey) {
      this.groupKey = groupKey;
      return this;
    }

    /**
     * A deduplication ID (null: none): 1 to 128 printable ASCII characters, as SQS's
     * MessageDeduplicationId. A second item with the same ID, namespace, topic and group key within the
     * namespace's window is not enqueued; {@link QueueClient#enqueue} tells which item holds.
     */
    public Builder dedupId(String dedupId) {
      this.dedupId = dedupId;
      return this;
    }

    public Builder traceId(String traceId) {
      this.traceId = traceId;
      return this;
    }

    /**
     * Adds a header (a Kafka record header, kept with the item); names may repeat, order is kept.
     * Names starting with {@value ItemHeaders#RESERVED_PREFIX} are Ordo's own and refused.
     */
    public Builder header(String name, byte[] value) {
      if (headers == null) {
        headers = ItemHeaders.builder();
      }
      headers.add(name, value);
      return this;
    }

    /** {@link #header(String, byte[])} with {@code value} as UTF-8. */
    public Builder header(String name, String value) {
      return header(name, value == null ? null : value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Adds every header of {@code all}, in order. */
    public Builder headers(ItemHeaders all) {
      for (ItemHeaders.Entry e : all.entries()) {
        header(e.name(), e.value());
      }
      return this;
    }

    /** Checks every field; throws {@link IllegalArgumentException} naming the first bad one. */
    public EnqueueRequest build() {
      Names.check("namespace", namespace);
      Names.check("topic", topic);
      if ("*".equals(topic)) {
        throw new IllegalArgumentException("topic '*' is reserved (it means any topic in a dequeue)");
      }
      if (payload == null) {
        throw new IllegalArgumentException("payload is missing");
      }
      if (delay != null && delay.isNegative()) {
        throw new IllegalArgumentException("delay must not be negative, got " + delay);
      }
      if (delay != null && deliverAfter != null) {
        throw new IllegalArgumentException("set delay or deliverAfter, not both");
      }
      if (lease != null && (lease.isNegative() || lease.isZero())) {
        throw new IllegalArgumentException("lease must be positive, got " + lease);
      }
      if (ttl != null && (ttl.isNegative() || ttl.isZero())) {
        throw new IllegalArgumentException("ttl must be positive, got " + ttl);
      }
      if (maxAttempts != null && maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
      }
      if (groupKey != null) {
        Names.check("groupKey", groupKey);
      }
      if (dedupId != null) {
        dev.ordo.api.Dedup.check("dedupId", dedupId);
      }
      if (traceId != null && traceId.length() > Names.MAX_LENGTH) {
        throw new IllegalArgumentException("traceId is longer than " + Names.MAX_LENGTH + " characters");
      }
      if (headers != null) {
        for (ItemHeaders.Entry e : headers.build().entries()) {
          if (ItemHeaders.isReserved(e.name())) {
            throw new IllegalArgumentException("headers: header name '" + e.name() + "' is reserved (names starting"
                + " with '" + ItemHeaders.RESERVED_PREFIX + "' are Ordo's own)");
          }
          if (!wellFormed(e.name())) {
            // Kafka's producer sizes a header name by its code points but writes String.getBytes: a name
            // with an unpaired surrogate makes a record of the wrong size, and the broker refuses its whole
            // batch, other enqueues' records included.
            throw new IllegalArgumentException("headers: header name '" + e.name() + "' has an unpaired surrogate:"
                + " not Unicode text");
          }
        }
      }
      return new EnqueueRequest(this);
    }
  }

  /** Whether {@code s} has no unpaired surrogate (every char is part of a Unicode code point). */
  static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EnqueueRequest r && namespace.equals(r.namespace) && topic.equals(r.topic)
        && priority == r.priority && Arrays.equals(payload, r.payload) && Arrays.equals(metadata, r.metadata)
        && Objects.equals(delay, r.delay) && Objects.equals(deliverAfter, r.deliverAfter)
        && Objects.equals(lease, r.lease) && Objects.equals(ttl, r.ttl) && semantics == r.semantics
        && Objects.equals(maxAttempts, r.maxAttempts) && Objects.equals(groupKey, r.groupKey)
        && Objects.equals(traceId, r.traceId) && Objects.equals(dedupId, r.dedupId) && headers.equals(r.headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(namespace, topic, priority, Arrays.hashCode(payload), groupKey);
  }
}
