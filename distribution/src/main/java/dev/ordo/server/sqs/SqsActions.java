package dev.ordo.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordo.api.ItemId;
import dev.ordo.client.BacklogFullException;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.TooLargeException;
import dev.ordo.client.TopicActivity;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.ItemHeader;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.server.auth.Caller;
import dev.ordo.server.auth.Permission;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.KafkaException;

/**
 * The SQS actions over Ordo: queues in {@link SqsQueues}, messages as items of the queue's (namespace,
 * topic) through one {@link QueueProducer} and one {@link QueueClient} (docs/sqs.md has the mapping).
 * Every parameter is checked before anything is sent, so a refused request leaves nothing behind.
 */
public final class SqsActions {
  /** The message attribute that sets an item's Ordo priority (a Number, an integer; lower is sooner). */
  public static final String PRIORITY_ATTRIBUTE = "ordo.priority";
  static final int MAX_BATCH = 10;
  static final int MAX_BATCH_BYTES = 262_144;
  private static final Duration SLACK = Duration.ofSeconds(15);
  /**
   * A visibility timeout of 0: the message is visible again at once and its receive counted, as in SQS,
   * so a nack with no delay (a release would give the attempt back; a nack on the last of
   * maxReceiveCount attempts dead-letters it, as SQS's redrive does).
   */
  private static final dev.ordo.client.NackOptions VISIBLE_NOW = new dev.ordo.client.NackOptions(Duration.ZERO, null,
      "visibility timeout set to 0", false);

  /**
   * Where a request was sent: its endpoint as the client addressed it, a namespace its path named
   * ({@code /<namespace>}), or a queue URL it was sent to ({@code /<namespace>/<queue>}).
   */
  public record Target(String endpoint, Optional<String> pathNamespace, Optional<String> pathQueueUrl) {}

  private final SqsQueues queues;
  private final QueueProducer producer;
  private final QueueClient client;
  private final SqsConfig config;
  private final Clock clock;
  private final MoveTasks moveTasks;

  public SqsActions(SqsQueues queues, QueueProducer producer, QueueClient client,
      dev.ordo.client.dlq.DeadLetters deadLetters, SqsConfig config, Clock clock) {
    this.queues = queues;
    this.producer = producer;
    this.client = client;
    this.config = config;
    this.clock = clock;
    this.moveTasks = new MoveTasks(queues, deadLetters, config.region());
  }

  /** Whether the endpoint answers {@code action} (else UnsupportedOperation). */
  public static boolean supported(String action) {
    return SqsAccess.REQUIRED.containsKey(action);
  }

  public Map<String, Object> handle(SqsRequest r, Caller caller, Target target) throws SqsException {
    return switch (r.action()) {
      case "CreateQueue" -> createQueue(r, caller, target);
      case "GetQueueUrl" -> getQueueUrl(r, caller, target);
      case "ListQueues" -> listQueues(r, caller, target);
      case "DeleteQueue" -> deleteQueue(r, caller);
      case "GetQueueAttributes" -> getQueueAttributes(r, caller);
      case "SetQueueAttributes" -> setQueueAttributes(r, caller);
      case "TagQueue" -> tagQueue(r, caller);
      case "UntagQueue" -> untagQueue(r, caller);
      case "ListQueueTags" -> listQueueTags(r, caller);
      case "SendMessage" -> sendMessage(r, caller);
      case "SendMessageBatch" -> sendMessageBatch(r, caller);
      case "ReceiveMessage" -> receiveMessage(r, caller);
      case "DeleteMessage" -> deleteMessage(r, caller);
      case "DeleteMessageBatch" -> deleteMessageBatch(r, caller);
      case "ChangeMessageVisibility" -> changeVisibility(r, caller);
      case "ChangeMessageVisibilityBatch" -> changeVisibilityBatch(r, caller);
      case "ListDeadLetterSourceQueues" -> listDeadLetterSourceQueues(r, caller, target);
      case "StartMessageMoveTask" -> moveTasks.start(r, caller);
      case "ListMessageMoveTasks" -> moveTasks.list(r, caller);
      case "CancelMessageMoveTask" -> moveTasks.cancel(r, caller);
      case "PurgeQueue" -> {
        queue(r, caller);
        throw SqsError.UNSUPPORTED_OPERATION.with("PurgeQueue is not supported by Ordo's SQS endpoint yet"
            + " (docs/sqs.md): the queue has no purge of a topic's items in every state yet");
      }
      default -> throw SqsError.UNSUPPORTED_OPERATION.with("The action " + r.action() + " is not valid for this"
          + " endpoint (Ordo's SQS endpoint supports: " + String.join(", ", SqsAccess.REQUIRED.keySet()) + ").");
    };
  }

  // ---- queues ----

  private String namespaceFor(SqsRequest r, Target target) throws SqsException {
    Optional<String> owner = r.string("QueueOwnerAWSAccountId");
    String ns = owner.orElse(target.pathNamespace().orElse(config.namespace()));
    QueueRef.checkNamespace(ns);
    return ns;
  }

  private Map<String, Object> createQueue(SqsRequest r, Caller caller, Target target) throws SqsException {
    String name = r.required("QueueName");
    QueueRef.checkName(name);
    QueueRef ref = new QueueRef(namespaceFor(r, target), name);
    SqsAccess.check(caller, r.action(), ref.namespace());
    Map<String, String> given = r.stringMap("Attributes");
    QueueAttributes attributes = QueueAttributes.of(given);
    Map<String, String> tags = new TreeMap<>(r.stringMap("Tags"));
    tags.putAll(r.stringMap("tags")); // the JSON protocol's CreateQueue names it in lower case
    checkTags(tags);
    checkRedriveTarget(attributes, ref);
    Optional<SqsQueue> existing = queues.get(ref);
    if (existing.isPresent()) {
      Map<String, String> now = existing.get().attributes().all();
      for (Map.Entry<String, String> e : attributes.all().entrySet()) {
        if (given.containsKey(e.getKey()) && !e.getValue().equals(now.get(e.getKey()))) {
          throw SqsError.QUEUE_NAME_EXISTS.with("A queue already exists with the same name and a different value for"
              + " attribute " + e.getKey());
        }
      }
      return Map.of("QueueUrl", ref.url(target.endpoint()));
    }
    queues.put(new SqsQueue(ref, attributes, tags, clock.millis()));
    return Map.of("QueueUrl", ref.url(target.endpoint()));
  }

  private void checkRedriveTarget(QueueAttributes attributes, QueueRef self) throws SqsException {
    Optional<QueueAttributes.RedrivePolicy> redrive = attributes.redrivePolicy();
    if (redrive.isPresent()) {
      QueueRef dlq = redrive.get().deadLetterTarget();
      if (dlq.equals(self) || queues.get(dlq).isEmpty()) {
        throw SqsError.INVALID_ATTRIBUTE_VALUE.with("Value " + attributes.values().get(QueueAttributes.REDRIVE_POLICY)
            + " for parameter RedrivePolicy is invalid. Reason: Dead letter target does not exist.");
      }
    }
  }

  private Map<String, Object> getQueueUrl(SqsRequest r, Caller caller, Target target) throws SqsException {
    String name = r.required("QueueName");
    QueueRef ref = new QueueRef(namespaceFor(r, target), name);
    SqsAccess.check(caller, r.action(), ref.namespace());
    if (queues.get(ref).isEmpty()) {
      throw nonExistent();
    }
    return Map.of("QueueUrl", ref.url(target.endpoint()));
  }

  private Map<String, Object> listQueues(SqsRequest r, Caller caller, Target target) throws SqsException {
    String prefix = r.string("QueueNamePrefix").orElse("");
    int max = r.integer("MaxResults", 1, 1000).orElse(1000);
    String after = r.string("NextToken").map(SqsActions::unToken).orElse(null);
    List<String> urls = new ArrayList<>();
    String next = null;
    String last = null;
    for (SqsQueue q : queues.all()) {
      QueueRef ref = q.ref();
      if (target.pathNamespace().isPresent() && !target.pathNamespace().get().equals(ref.namespace())
          || !ref.name().startsWith(prefix) || !SqsAccess.allows(caller, r.action(), ref.namespace())
          || after != null && ref.toString().compareTo(after) <= 0) {
        continue;
      }
      if (urls.size() == max) {
        next = token(last);
        break;
      }
      urls.add(ref.url(target.endpoint()));
      last = ref.toString();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("QueueUrls", urls);
    if (next != null) {
      out.put("NextToken", next);
    }
    return out;
  }

  private static String token(String key) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(key.getBytes(StandardCharsets.UTF_8));
  }

  private static String unToken(String token) {
    try {
      return new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  private Map<String, Object> deleteQueue(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    queues.remove(q.ref());
    return Map.of();
  }

  private Map<String, Object> getQueueAttributes(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    List<String> names = r.strings("AttributeNames");
    boolean all = names.contains("All");
    for (String n : names) {
      if (!n.equals("All") && !QueueAttributes.known(n)) {
        throw SqsError.INVALID_ATTRIBUTE_NAME.with("Unknown Attribute " + n + ".");
      }
    }
    Map<String, String> values = new TreeMap<>(q.attributes().all());
    values.put("QueueArn", q.ref().arn(config.region()));
    values.put("CreatedTimestamp", Long.toString(q.createdAt() / 1000));
    values.put("LastModifiedTimestamp", Long.toString(q.modifiedAt() / 1000));
    if (all || names.stream().anyMatch(n -> n.startsWith("ApproximateNumberOfMessages"))) {
      List<TopicActivity> topics = await(client.activeTopics(q.ref().namespace()), SLACK, "reading the topics table");
      TopicActivity a = topics.stream().filter(t -> t.topic().equals(q.ref().name())).findFirst().orElse(null);
      values.put("ApproximateNumberOfMessages", Long.toString(a == null ? 0 : a.ready() + a.overflow()));
      values.put("ApproximateNumberOfMessagesNotVisible", Long.toString(a == null ? 0 : a.leased()));
      values.put("ApproximateNumberOfMessagesDelayed", Long.toString(a == null ? 0 : a.delayed() + a.parked()));
    }
    Map<String, Object> out = new TreeMap<>();
    values.forEach((k, v) -> {
      if (all || names.contains(k)) {
        out.put(k, v);
      }
    });
    return out.isEmpty() ? Map.of() : Map.of("Attributes", out);
  }

  private Map<String, Object> setQueueAttributes(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    Map<String, String> given = r.stringMap("Attributes");
    QueueAttributes attributes = q.attributes().with(given);
    checkRedriveTarget(attributes, q.ref());
    queues.put(q.withAttributes(attributes, clock.millis()));
    return Map.of();
  }

  private Map<String, Object> tagQueue(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    Map<String, String> tags = new TreeMap<>(q.tags());
    tags.putAll(r.stringMap("Tags"));
    checkTags(tags);
    queues.put(q.withTags(tags, clock.millis()));
    return Map.of();
  }

  private Map<String, Object> untagQueue(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    Map<String, String> tags = new TreeMap<>(q.tags());
    r.strings("TagKeys").forEach(tags::remove);
    queues.put(q.withTags(tags, clock.millis()));
    return Map.of();
  }

  private Map<String, Object> listQueueTags(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    return q.tags().isEmpty() ? Map.of() : Map.of("Tags", new TreeMap<String, Object>(q.tags()));
  }

  private static void checkTags(Map<String, String> tags) throws SqsException {
    if (tags.size() > 50) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("Too many tags: a queue has at most 50, got " + tags.size());
    }
    for (Map.Entry<String, String> t : tags.entrySet()) {
      if (t.getKey().isEmpty() || t.getKey().length() > 128 || t.getValue().length() > 256) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("Tag keys are 1 to 128 characters, values at most 256: '"
            + t.getKey() + "'");
      }
    }
  }

  private Map<String, Object> listDeadLetterSourceQueues(SqsRequest r, Caller caller, Target target)
      throws SqsException {
    SqsQueue dlq = queue(r, caller);
    List<String> urls = new ArrayList<>();
    for (SqsQueue q : queues.all()) {
      Optional<QueueAttributes.RedrivePolicy> p = q.attributes().redrivePolicy();
      if (p.isPresent() && p.get().deadLetterTarget().equals(dlq.ref())
          && SqsAccess.allows(caller, r.action(), q.ref().namespace())) {
        urls.add(q.ref().url(target.endpoint()));
      }
    }
    return Map.of("queueUrls", urls);
  }

  /** The queue {@code QueueUrl} names, which must exist, once the caller may do the action in its namespace. */
  private SqsQueue queue(SqsRequest r, Caller caller) throws SqsException {
    QueueRef ref = QueueRef.fromUrl(r.required("QueueUrl"));
    SqsAccess.check(caller, r.action(), ref.namespace());
    return queues.get(ref).orElseThrow(SqsActions::nonExistent);
  }

  private static SqsException nonExistent() {
    return SqsError.QUEUE_DOES_NOT_EXIST.with("The specified queue does not exist.");
  }

  // ---- messages ----

  /** One message to send, checked: its item and what the answer says of it. */
  private record Checked(EnqueueRequest request, String md5OfBody, String md5OfAttributes, int size) {}

  private Checked checkMessage(JsonNode p, SqsQueue q) throws SqsException {
    String body = SqsRequest.required(p, "MessageBody");
    if (body.isEmpty()) {
      throw SqsError.MISSING_PARAMETER.with("The request must contain the parameter MessageBody.");
    }
    MessageBodies.checkCharacters(body, "the message body");
    if (SqsRequest.string(p, "MessageDeduplicationId").isPresent()) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("The request include parameter MessageDeduplicationId that is not"
          + " valid for this queue type (FIFO queues are not supported by Ordo yet)");
    }
    int delay = SqsRequest.integer(p, "DelaySeconds", 0, 900).orElse((int) q.attributes().delay().toSeconds());
    MessageAttributes attributes = MessageAttributes.parse(p.get("MessageAttributes"));
    byte[] payload = body.getBytes(StandardCharsets.UTF_8);
    int size = payload.length + attributes.size();
    int max = q.attributes().maximumMessageSize();
    if (size > max) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("One or more parameters are invalid. Reason: Message must be shorter"
          + " than " + max + " bytes.");
    }
    EnqueueRequest.Builder b = EnqueueRequest.builder(q.ref().namespace(), q.ref().name(), payload)
        .delay(Duration.ofSeconds(delay))
        .lease(leaseOf(q.attributes().visibilityTimeout()))
        .ttl(q.attributes().retention())
        .maxAttempts(q.attributes().redrivePolicy().map(QueueAttributes.RedrivePolicy::maxReceiveCount)
            .orElse(Integer.MAX_VALUE));
    Optional<Integer> priority = priority(attributes).or(() -> q.attributes().priority());
    priority.ifPresent(b::priority);
    Optional<String> group = SqsRequest.string(p, "MessageGroupId");
    if (group.isPresent()) {
      if (group.get().isEmpty() || group.get().length() > 128) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("MessageGroupId is 1 to 128 characters");
      }
      b.groupKey(group.get());
    }
    if (!attributes.isEmpty()) {
      b.header(MessageAttributes.HEADER, attributes.encode());
    }
    try {
      return new Checked(b.build(), MessageAttributes.md5Hex(payload), attributes.md5(), size);
    } catch (IllegalArgumentException e) {
      throw SqsError.INVALID_PARAMETER_VALUE.with(e.getMessage());
    }
  }

  /** A visibility timeout as a lease: Ordo's shortest lease is 1 ms, SQS's visibility timeout may be 0. */
  private static Duration leaseOf(Duration visibility) {
    return visibility.isZero() ? Duration.ofMillis(1) : visibility;
  }

  static Optional<Integer> priority(MessageAttributes attributes) throws SqsException {
    MessageAttributes.Value v = attributes.values().get(PRIORITY_ATTRIBUTE);
    if (v == null) {
      return Optional.empty();
    }
    try {
      if (!v.dataType().startsWith("Number")) {
        throw new NumberFormatException();
      }
      return Optional.of(new BigDecimal(v.text().trim()).intValueExact());
    } catch (NumberFormatException | ArithmeticException e) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("The message attribute '" + PRIORITY_ATTRIBUTE + "' must be a Number"
          + " holding a 32-bit integer (the Ordo priority, lower is sooner), got " + v.dataType() + " '" + v.text()
          + "'");
    }
  }

  private CompletableFuture<ItemId> send(EnqueueRequest request) throws SqsException {
    try {
      return producer.enqueue(request, Duration.ZERO);
    } catch (TooLargeException e) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("One or more parameters are invalid. Reason: " + e.getMessage()
          + " (Ordo's limit, ordo.payload.max.bytes)");
    } catch (IllegalArgumentException e) {
      throw SqsError.INVALID_PARAMETER_VALUE.with(e.getMessage());
    }
  }

  private static Map<String, Object> sent(Checked c, ItemId id) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("MD5OfMessageBody", c.md5OfBody());
    if (c.md5OfAttributes() != null) {
      out.put("MD5OfMessageAttributes", c.md5OfAttributes());
    }
    out.put("MessageId", id.toString());
    return out;
  }

  private Map<String, Object> sendMessage(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    Checked c = checkMessage(r.params(), q);
    ItemId id = await(send(c.request()), SLACK.multipliedBy(2), "the send");
    return sent(c, id);
  }

  private Map<String, Object> sendMessageBatch(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    List<ObjectNode> entries = batch(r);
    Map<String, Object> failed = new LinkedHashMap<>();
    Map<String, Checked> checked = new LinkedHashMap<>();
    int total = 0;
    for (ObjectNode e : entries) {
      String id = e.get("Id").asText();
      try {
        Checked c = checkMessage(e, q);
        checked.put(id, c);
        total += c.size();
      } catch (SqsException ex) {
        failed.put(id, ex);
      }
    }
    if (total > MAX_BATCH_BYTES) {
      throw SqsError.BATCH_TOO_LONG.with("Batch requests cannot be longer than " + MAX_BATCH_BYTES + " bytes. You have"
          + " sent " + total + " bytes.");
    }
    Map<String, CompletableFuture<ItemId>> futures = new LinkedHashMap<>();
    for (Map.Entry<String, Checked> c : checked.entrySet()) {
      try {
        futures.put(c.getKey(), send(c.getValue().request()));
      } catch (SqsException ex) {
        failed.put(c.getKey(), ex);
      }
    }
    List<Object> successful = new ArrayList<>();
    for (Map.Entry<String, CompletableFuture<ItemId>> f : futures.entrySet()) {
      try {
        Map<String, Object> one = new LinkedHashMap<>();
        one.put("Id", f.getKey());
        one.putAll(sent(checked.get(f.getKey()), await(f.getValue(), SLACK.multipliedBy(2), "the send")));
        successful.add(one);
      } catch (SqsException ex) {
        failed.put(f.getKey(), ex);
      }
    }
    return batchResult(successful, failed);
  }

  private Map<String, Object> receiveMessage(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    int max = r.integer("MaxNumberOfMessages", 1, MAX_BATCH).orElse(1);
    int wait = r.integer("WaitTimeSeconds", 0, 20).orElse((int) q.attributes().receiveWait().toSeconds());
    Optional<Integer> visibility = r.integer("VisibilityTimeout", 0, 43200);
    List<String> system = new ArrayList<>(r.strings("AttributeNames"));
    system.addAll(r.strings("MessageSystemAttributeNames"));
    List<String> attributeNames = r.strings("MessageAttributeNames");
    List<DeliveredItem> items = await(client.dequeue(q.ref().namespace(), q.ref().name(), max, Duration.ofSeconds(wait)),
        Duration.ofSeconds(wait).plus(SLACK), "the receive");
    if (visibility.isPresent()) {
      items = withVisibility(items, visibility.get());
    }
    long now = clock.millis();
    List<Object> messages = new ArrayList<>();
    for (DeliveredItem item : items) {
      messages.add(message(item, q.ref(), system, attributeNames, now));
    }
    return messages.isEmpty() ? Map.of() : Map.of("Messages", messages);
  }

  /** The received items whose lease was set to {@code seconds} (0: given back at once, so not returned). */
  private List<DeliveredItem> withVisibility(List<DeliveredItem> items, int seconds) throws SqsException {
    List<CompletableFuture<Outcome>> changes = new ArrayList<>();
    for (DeliveredItem item : items) {
      ItemId id = ItemId.parse(item.getItemId());
      changes.add(seconds == 0 ? client.nack(id, item.getLeaseId(), VISIBLE_NOW)
          : client.extend(id, item.getLeaseId(), Duration.ofSeconds(seconds)));
    }
    List<DeliveredItem> kept = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      Outcome o = await(changes.get(i), SLACK, "setting the visibility timeout");
      if (seconds > 0 && o.getResult() == OutcomeResult.APPLIED) {
        DeliveredItem item = items.get(i);
        if (o.getLeaseExpiresAt() != null) {
          item.setLeaseExpiresAt(o.getLeaseExpiresAt());
        }
        kept.add(item);
      }
    }
    return kept;
  }

  private Map<String, Object> message(DeliveredItem item, QueueRef ref, List<String> system, List<String> names,
      long now) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("MessageId", item.getItemId());
    m.put("ReceiptHandle", new ReceiptHandle(ItemId.parse(item.getItemId()), item.getLeaseId(), ref.namespace(),
        ref.name()).encode());
    byte[] payload = bytes(item.getPayload());
    m.put("MD5OfBody", MessageAttributes.md5Hex(payload));
    m.put("Body", new String(payload, StandardCharsets.UTF_8));
    Map<String, Object> attributes = new TreeMap<>();
    boolean all = system.contains("All");
    if (all || system.contains("ApproximateReceiveCount")) {
      attributes.put("ApproximateReceiveCount", Integer.toString(item.getAttempt()));
    }
    if (all || system.contains("SentTimestamp")) {
      attributes.put("SentTimestamp", Long.toString(item.getEnqueuedAt()));
    }
    if ((all || system.contains("ApproximateFirstReceiveTimestamp")) && item.getAttempt() == 1) {
      attributes.put("ApproximateFirstReceiveTimestamp", Long.toString(now));
    }
    if ((all || system.contains("MessageGroupId")) && item.getGroupKey() != null) {
      attributes.put("MessageGroupId", item.getGroupKey());
    }
    if (!attributes.isEmpty()) {
      m.put("Attributes", attributes);
    }
    MessageAttributes selected = attributesOf(item).select(names);
    if (!selected.isEmpty()) {
      m.put("MD5OfMessageAttributes", selected.md5());
      Map<String, Object> out = new TreeMap<>();
      selected.values().forEach((name, v) -> {
        Map<String, Object> value = new LinkedHashMap<>();
        if (v.binary()) {
          value.put("BinaryValue", Base64.getEncoder().encodeToString(v.bytes()));
        } else {
          value.put("StringValue", v.text());
        }
        value.put("DataType", v.dataType());
        out.put(name, value);
      });
      m.put("MessageAttributes", out);
    }
    return m;
  }

  private static MessageAttributes attributesOf(DeliveredItem item) {
    if (item.getHeaders() == null) {
      return MessageAttributes.NONE;
    }
    for (ItemHeader h : item.getHeaders()) {
      if (MessageAttributes.HEADER.equals(h.getKey()) && h.getValue() != null) {
        try {
          return MessageAttributes.decode(bytes(h.getValue()));
        } catch (IllegalArgumentException e) {
          return MessageAttributes.NONE; // written by another client: not SQS attributes
        }
      }
    }
    return MessageAttributes.NONE;
  }

  private static byte[] bytes(ByteBuffer b) {
    ByteBuffer d = b.duplicate();
    byte[] out = new byte[d.remaining()];
    d.get(out);
    return out;
  }

  /** A receipt handle of this queue (ReceiptHandleIsInvalid for a handle of another queue or not ours). */
  private static ReceiptHandle handle(JsonNode p, SqsQueue q) throws SqsException {
    ReceiptHandle h = ReceiptHandle.decode(SqsRequest.required(p, "ReceiptHandle"));
    if (!h.namespace().equals(q.ref().namespace()) || !h.topic().equals(q.ref().name())) {
      throw SqsError.RECEIPT_HANDLE_IS_INVALID.with("The input receipt handle is not a valid receipt handle for"
          + " queue " + q.ref().name() + ".");
    }
    return h;
  }

  private Map<String, Object> deleteMessage(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    ReceiptHandle h = handle(r.params(), q);
    deleted(await(client.within(caller.scope(Permission.CONSUME)).ack(h.itemId(), h.leaseId()), SLACK, "the delete"));
    return Map.of();
  }

  /**
   * A delete's outcome as SQS answers it: done, or already gone (deleted, expired): success; a handle of
   * an earlier receive (the message was received again since): success, the message is not deleted, as
   * SQS documents for a receipt handle that is not the latest.
   */
  private static void deleted(Outcome o) throws SqsException {
    if (o.getForbiddenNamespace() != null) {
      throw SqsError.ACCESS_DENIED.with("Access to the resource is denied: namespace " + o.getForbiddenNamespace());
    }
    if (o.getResult() == OutcomeResult.INVALID) {
      throw SqsError.RECEIPT_HANDLE_IS_INVALID.with("The receipt handle was refused: " + o.getDetail());
    }
  }

  private Map<String, Object> deleteMessageBatch(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    List<ObjectNode> entries = batch(r);
    Map<String, Object> failed = new LinkedHashMap<>();
    List<String> ids = new ArrayList<>();
    List<Map.Entry<ItemId, String>> acks = new ArrayList<>();
    for (ObjectNode e : entries) {
      String id = e.get("Id").asText();
      try {
        ReceiptHandle h = handle(e, q);
        ids.add(id);
        acks.add(Map.entry(h.itemId(), h.leaseId()));
      } catch (SqsException ex) {
        failed.put(id, ex);
      }
    }
    List<CompletableFuture<Outcome>> futures = acks.isEmpty() ? List.of()
        : client.within(caller.scope(Permission.CONSUME)).ackAll(acks);
    List<Object> successful = new ArrayList<>();
    for (int i = 0; i < futures.size(); i++) {
      try {
        deleted(await(futures.get(i), SLACK, "the delete"));
        successful.add(Map.of("Id", ids.get(i)));
      } catch (SqsException ex) {
        failed.put(ids.get(i), ex);
      }
    }
    return batchResult(successful, failed);
  }

  private CompletableFuture<Outcome> changeVisibility(ReceiptHandle h, int seconds, Caller caller) {
    QueueClient.Scoped scoped = client.within(caller.scope(Permission.CONSUME));
    return seconds == 0 ? scoped.nack(h.itemId(), h.leaseId(), VISIBLE_NOW)
        : scoped.extend(h.itemId(), h.leaseId(), Duration.ofSeconds(seconds));
  }

  /** A visibility change's outcome: applied, else as SQS answers a handle whose message is not in flight on it. */
  private static void changed(Outcome o, ReceiptHandle h) throws SqsException {
    if (o.getForbiddenNamespace() != null) {
      throw SqsError.ACCESS_DENIED.with("Access to the resource is denied: namespace " + o.getForbiddenNamespace());
    }
    switch (o.getResult()) {
      case APPLIED -> { }
      case STALE_LEASE -> throw SqsError.MESSAGE_NOT_INFLIGHT.with("Value " + h.encode() + " for parameter"
          + " ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout"
          + " change (it was received again, or its visibility timeout ran out).");
      case UNKNOWN_ITEM -> throw SqsError.INVALID_PARAMETER_VALUE.with("Value " + h.encode() + " for parameter"
          + " ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout"
          + " change.");
      case INVALID -> throw SqsError.INVALID_PARAMETER_VALUE.with("Refused by the queue: " + o.getDetail());
    }
  }

  private Map<String, Object> changeVisibility(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    ReceiptHandle h = handle(r.params(), q);
    int seconds = SqsRequest.integer(r.params(), "VisibilityTimeout", 0, 43200)
        .orElseThrow(() -> SqsError.MISSING_PARAMETER.with("The request must contain the parameter VisibilityTimeout."));
    changed(await(changeVisibility(h, seconds, caller), SLACK, "the visibility change"), h);
    return Map.of();
  }

  private Map<String, Object> changeVisibilityBatch(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    List<ObjectNode> entries = batch(r);
    Map<String, Object> failed = new LinkedHashMap<>();
    Map<String, ReceiptHandle> handles = new LinkedHashMap<>();
    Map<String, CompletableFuture<Outcome>> futures = new LinkedHashMap<>();
    for (ObjectNode e : entries) {
      String id = e.get("Id").asText();
      try {
        ReceiptHandle h = handle(e, q);
        int seconds = SqsRequest.integer(e, "VisibilityTimeout", 0, 43200).orElseThrow(() ->
            SqsError.MISSING_PARAMETER.with("The request must contain the parameter VisibilityTimeout."));
        handles.put(id, h);
        futures.put(id, changeVisibility(h, seconds, caller));
      } catch (SqsException ex) {
        failed.put(id, ex);
      }
    }
    List<Object> successful = new ArrayList<>();
    for (Map.Entry<String, CompletableFuture<Outcome>> f : futures.entrySet()) {
      try {
        changed(await(f.getValue(), SLACK, "the visibility change"), handles.get(f.getKey()));
        successful.add(Map.of("Id", f.getKey()));
      } catch (SqsException ex) {
        failed.put(f.getKey(), ex);
      }
    }
    return batchResult(successful, failed);
  }

  // ---- batches ----

  /** A batch's entries, checked as SQS checks them: 1 to 10, each with a distinct valid Id. */
  private static List<ObjectNode> batch(SqsRequest r) throws SqsException {
    List<ObjectNode> entries = r.entries();
    if (entries.isEmpty()) {
      throw SqsError.EMPTY_BATCH.with("There should be at least one " + r.action().replace("Batch", "")
          + "BatchRequestEntry in the request.");
    }
    if (entries.size() > MAX_BATCH) {
      throw SqsError.TOO_MANY_ENTRIES.with("Maximum number of entries per request are " + MAX_BATCH + ". You have sent "
          + entries.size() + ".");
    }
    Set<String> ids = new HashSet<>();
    for (ObjectNode e : entries) {
      String id = e.hasNonNull("Id") ? e.get("Id").asText() : "";
      if (id.isEmpty() || id.length() > 80 || !id.chars().allMatch(c -> c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
          || c >= '0' && c <= '9' || c == '-' || c == '_')) {
        throw SqsError.INVALID_BATCH_ENTRY_ID.with("A batch entry id can only contain alphanumeric characters, hyphens"
            + " and underscores. It can be at most 80 letters long.");
      }
      if (!ids.add(id)) {
        throw SqsError.BATCH_IDS_NOT_DISTINCT.with("Id " + id + " repeated.");
      }
    }
    return entries;
  }

  private static Map<String, Object> batchResult(List<Object> successful, Map<String, Object> failed) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("Successful", successful);
    List<Object> f = new ArrayList<>();
    failed.forEach((id, e) -> {
      SqsException ex = (SqsException) e;
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("Id", id);
      m.put("SenderFault", ex.error().senderFault());
      m.put("Code", ex.error().code());
      m.put("Message", ex.getMessage());
      f.add(m);
    });
    out.put("Failed", f);
    return out;
  }

  // ---- waiting ----

  /**
   * Waits for a client future: no answer in time or Kafka away is ServiceUnavailable (SDKs retry it),
   * a full backlog RequestThrottled.
   */
  static <T> T await(CompletableFuture<T> future, Duration timeout, String what) throws SqsException {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(false);
      throw SqsError.SERVICE_UNAVAILABLE.with("interrupted while waiting for " + what + " (the server is stopping)");
    } catch (TimeoutException e) {
      throw SqsError.SERVICE_UNAVAILABLE.with("no answer to " + what + " within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof BacklogFullException) {
        throw SqsError.REQUEST_THROTTLED.with(cause.getMessage());
      }
      if (cause instanceof IllegalArgumentException) {
        throw SqsError.INVALID_PARAMETER_VALUE.with(cause.getMessage());
      }
      if (cause instanceof TimeoutException || cause instanceof KafkaException || cause instanceof IllegalStateException) {
        throw SqsError.SERVICE_UNAVAILABLE.with(what + " failed: " + cause.getMessage());
      }
      throw SqsError.INTERNAL_ERROR.with(what + " failed: " + cause);
    }
  }
}
