package dev.ordo.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The attributes a queue was given (CreateQueue, SetQueueAttributes), checked as SQS checks them, and
 * what they mean for Ordo: the visibility timeout is the lease, DelaySeconds the delay, the retention
 * period the TTL, maxReceiveCount the attempts limit, {@value #ORDO_PRIORITY} the default priority.
 * Pure.
 */
public record QueueAttributes(Map<String, String> values) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static final String DELAY_SECONDS = "DelaySeconds";
  public static final String MAXIMUM_MESSAGE_SIZE = "MaximumMessageSize";
  public static final String MESSAGE_RETENTION_PERIOD = "MessageRetentionPeriod";
  public static final String RECEIVE_WAIT = "ReceiveMessageWaitTimeSeconds";
  public static final String VISIBILITY_TIMEOUT = "VisibilityTimeout";
  public static final String REDRIVE_POLICY = "RedrivePolicy";
  public static final String REDRIVE_ALLOW_POLICY = "RedriveAllowPolicy";
  /** Ordo's own: the priority of a message that sets no {@code ordo.priority} attribute (lower is sooner). */
  public static final String ORDO_PRIORITY = "OrdoPriority";

  /** Settable, with their defaults (SQS's); those without a default are absent until set. */
  static final Map<String, String> DEFAULTS = defaults();
  /** Settable, kept and shown as given, with no effect in Ordo (docs/sqs.md). */
  static final Set<String> KEPT = Set.of("Policy", "KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds",
      "SqsManagedSseEnabled", REDRIVE_ALLOW_POLICY);
  public static final String FIFO_QUEUE = "FifoQueue";
  public static final String CONTENT_BASED_DEDUPLICATION = "ContentBasedDeduplication";
  public static final String DEDUPLICATION_SCOPE = "DeduplicationScope";
  public static final String FIFO_THROUGHPUT_LIMIT = "FifoThroughputLimit";
  /**
   * FIFO queues' attributes, with their defaults (SQS's): set on a FIFO queue only (a standard queue
   * answers InvalidAttributeName, as SQS does), shown for FIFO queues only. FifoQueue is fixed by the name.
   */
  static final Map<String, String> FIFO_DEFAULTS = Map.of(FIFO_QUEUE, "true", CONTENT_BASED_DEDUPLICATION, "false",
      DEDUPLICATION_SCOPE, "queue", FIFO_THROUGHPUT_LIMIT, "perQueue");
  static final Set<String> FIFO_ONLY = FIFO_DEFAULTS.keySet();
  /** Computed by GetQueueAttributes, not settable. */
  public static final List<String> READ_ONLY = List.of("QueueArn", "ApproximateNumberOfMessages",
      "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed", "CreatedTimestamp",
      "LastModifiedTimestamp");

  private static Map<String, String> defaults() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(DELAY_SECONDS, "0");
    m.put(MAXIMUM_MESSAGE_SIZE, "262144");
    m.put(MESSAGE_RETENTION_PERIOD, "345600");
    m.put(RECEIVE_WAIT, "0");
    m.put(VISIBILITY_TIMEOUT, "30");
    m.put("SqsManagedSseEnabled", "false");
    return m;
  }

  /** The queue's redrive policy: dead letters after {@code maxReceiveCount} receives, named target queue. */
  public record RedrivePolicy(QueueRef deadLetterTarget, String targetArn, int maxReceiveCount) {}

  public static QueueAttributes of(Map<String, String> given) throws SqsException {
    return of(given, false);
  }

  /**
   * The attributes of a new queue, FIFO or not (its name says): a FIFO queue holds the FIFO attributes
   * with their defaults; FifoQueue given must agree with the name.
   */
  public static QueueAttributes of(Map<String, String> given, boolean fifo) throws SqsException {
    String asked = given.get(FIFO_QUEUE);
    if (asked != null && !asked.trim().equalsIgnoreCase(Boolean.toString(fifo))) {
      if (fifo) {
        throw SqsError.INVALID_ATTRIBUTE_VALUE.with("Invalid value for the parameter FifoQueue: a queue whose name ends"
            + " with .fifo is a FIFO queue (FifoQueue true), got '" + asked + "'.");
      }
      if (asked.trim().equalsIgnoreCase("true")) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("The name of a FIFO queue can only include alphanumeric characters,"
            + " hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.");
      }
      throw SqsError.INVALID_ATTRIBUTE_VALUE.with("Invalid value for the parameter FifoQueue: '" + asked + "'.");
    }
    Map<String, String> rest = new LinkedHashMap<>(given);
    rest.remove(FIFO_QUEUE);
    return new QueueAttributes(fifo ? FIFO_DEFAULTS : Map.of()).with(rest);
  }

  /** True for a FIFO queue's attributes. */
  public boolean fifo() {
    return "true".equals(values.get(FIFO_QUEUE));
  }

  /** ContentBasedDeduplication: a message without a MessageDeduplicationId gets the SHA-256 of its body. */
  public boolean contentBasedDeduplication() {
    return fifo() && "true".equals(values.get(CONTENT_BASED_DEDUPLICATION));
  }

  /** These attributes changed by {@code given} (an empty value removes RedrivePolicy and the kept ones), checked. */
  public QueueAttributes with(Map<String, String> given) throws SqsException {
    Map<String, String> out = new TreeMap<>(values);
    for (Map.Entry<String, String> e : given.entrySet()) {
      String name = e.getKey();
      String value = e.getValue() == null ? "" : e.getValue().trim();
      if (FIFO_ONLY.contains(name)) {
        if (!fifo()) {
          if (name.equals(FIFO_QUEUE) && value.equalsIgnoreCase("false")) {
            continue;
          }
          throw SqsError.INVALID_ATTRIBUTE_NAME.with("Unknown Attribute " + name + ".");
        }
        out.put(name, switch (name) {
          case FIFO_QUEUE -> oneOf(name, value, "true");
          case CONTENT_BASED_DEDUPLICATION -> oneOf(name, value.toLowerCase(java.util.Locale.ROOT), "true", "false");
          case DEDUPLICATION_SCOPE -> oneOf(name, value, "queue", "messageGroup");
          default -> oneOf(name, value, "perQueue", "perMessageGroupId");
        });
        continue;
      }
      switch (name) {
        case DELAY_SECONDS -> out.put(name, range(name, value, 0, 900));
        case MAXIMUM_MESSAGE_SIZE -> out.put(name, range(name, value, 1024, 262144));
        case MESSAGE_RETENTION_PERIOD -> out.put(name, range(name, value, 60, 1209600));
        case RECEIVE_WAIT -> out.put(name, range(name, value, 0, 20));
        case VISIBILITY_TIMEOUT -> out.put(name, range(name, value, 0, 43200));
        case ORDO_PRIORITY -> out.put(name, range(name, value, Integer.MIN_VALUE, Integer.MAX_VALUE));
        case REDRIVE_POLICY -> {
          if (value.isEmpty()) {
            out.remove(name);
          } else {
            redrive(value);
            out.put(name, value);
          }
        }
        default -> {
          if (!KEPT.contains(name)) {
            throw SqsError.INVALID_ATTRIBUTE_NAME.with("Unknown Attribute " + name + ".");
          }
          if (value.isEmpty()) {
            out.remove(name);
          } else {
            out.put(name, value);
          }
        }
      }
    }
    return new QueueAttributes(Map.copyOf(out));
  }

  private static String oneOf(String name, String value, String... allowed) throws SqsException {
    for (String a : allowed) {
      if (a.equals(value)) {
        return value;
      }
    }
    throw SqsError.INVALID_ATTRIBUTE_VALUE.with("Invalid value for the parameter " + name + ": '" + value + "' is not"
        + " one of " + String.join(", ", allowed) + ".");
  }

  private static String range(String name, String value, long min, long max) throws SqsException {
    long v;
    try {
      v = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw SqsError.INVALID_ATTRIBUTE_VALUE.with("Invalid value for the parameter " + name + ": '" + value
          + "' is not an integer.");
    }
    if (v < min || v > max) {
      throw SqsError.INVALID_ATTRIBUTE_VALUE.with("Invalid value for the parameter " + name + ": " + v + " is not"
          + " between " + min + " and " + max + ".");
    }
    return Long.toString(v);
  }

  static RedrivePolicy redrive(String json) throws SqsException {
    JsonNode n;
    try {
      n = JSON.readTree(json);
    } catch (IOException e) {
      throw SqsError.INVALID_ATTRIBUTE_VALUE.with("Invalid value for the parameter RedrivePolicy. Reason: not JSON.");
    }
    if (n == null || !n.isObject() || !n.hasNonNull("deadLetterTargetArn") || !n.hasNonNull("maxReceiveCount")) {
      throw SqsError.INVALID_ATTRIBUTE_VALUE.with("Value " + json + " for parameter RedrivePolicy is invalid. Reason:"
          + " Redrive policy does not contain mandatory attribute: deadLetterTargetArn and maxReceiveCount.");
    }
    int count;
    try {
      count = Integer.parseInt(n.get("maxReceiveCount").asText().trim());
    } catch (NumberFormatException e) {
      count = -1;
    }
    if (count < 1 || count > 1000) {
      throw SqsError.INVALID_ATTRIBUTE_VALUE.with("Value " + json + " for parameter RedrivePolicy is invalid. Reason:"
          + " Invalid value for maxReceiveCount: " + n.get("maxReceiveCount").asText() + ", valid values are from 1"
          + " to 1000 both inclusive.");
    }
    String arn = n.get("deadLetterTargetArn").asText();
    QueueRef target;
    try {
      target = QueueRef.fromArn(arn);
    } catch (SqsException e) {
      throw SqsError.INVALID_ATTRIBUTE_VALUE.with("Value " + json + " for parameter RedrivePolicy is invalid. Reason: "
          + e.getMessage());
    }
    return new RedrivePolicy(target, arn, count);
  }

  /** The value in force: set, or SQS's default. */
  public Optional<String> get(String name) {
    return Optional.ofNullable(values.getOrDefault(name, DEFAULTS.get(name)));
  }

  private int seconds(String name) {
    return Integer.parseInt(get(name).orElseThrow());
  }

  public Duration visibilityTimeout() {
    return Duration.ofSeconds(seconds(VISIBILITY_TIMEOUT));
  }

  public Duration delay() {
    return Duration.ofSeconds(seconds(DELAY_SECONDS));
  }

  public Duration retention() {
    return Duration.ofSeconds(seconds(MESSAGE_RETENTION_PERIOD));
  }

  public Duration receiveWait() {
    return Duration.ofSeconds(seconds(RECEIVE_WAIT));
  }

  public int maximumMessageSize() {
    return seconds(MAXIMUM_MESSAGE_SIZE);
  }

  public Optional<Integer> priority() {
    return Optional.ofNullable(values.get(ORDO_PRIORITY)).map(Integer::valueOf);
  }

  public Optional<RedrivePolicy> redrivePolicy() {
    String v = values.get(REDRIVE_POLICY);
    if (v == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(redrive(v));
    } catch (SqsException e) {
      return Optional.empty(); // checked when set
    }
  }

  /** Every attribute in force: those set and the defaults. */
  public Map<String, String> all() {
    Map<String, String> out = new TreeMap<>(DEFAULTS);
    out.putAll(values);
    return out;
  }

  /** Whether {@code name} is an attribute GetQueueAttributes may be asked for. */
  public static boolean known(String name) {
    return DEFAULTS.containsKey(name) || KEPT.contains(name) || READ_ONLY.contains(name) || name.equals(REDRIVE_POLICY)
        || name.equals(ORDO_PRIORITY) || FIFO_ONLY.contains(name);
  }
}
