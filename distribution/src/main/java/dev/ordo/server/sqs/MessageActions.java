package dev.ordo.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueItem;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.TooLargeException;
import dev.ordo.server.auth.Caller;
import dev.ordo.server.auth.Permission;
import java.math.BigDecimal;
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

/**
 * The message actions: SendMessage(Batch), ReceiveMessage, DeleteMessage(Batch) and
 * ChangeMessageVisibility(Batch), as enqueues through a {@link QueueProducer} and dequeues, acks,
 * nacks and extends through a {@link QueueClient}. Every parameter is checked before anything is sent.
 */
final class MessageActions {
  private static final String PRIORITY_ATTRIBUTE = SqsActions.PRIORITY_ATTRIBUTE;
  /** SQS's most entries in a batch, and messages in a receive. */
  static final int MAX_BATCH = 10;
  /** SQS's most bytes of a SendMessageBatch's messages in all. */
  static final int MAX_BATCH_BYTES = 262_144;
  private static final Duration SLACK = Duration.ofSeconds(15);
  /**
   * A visibility timeout of 0: the message is visible again at once and its receive counted, as in SQS,
   * so a nack with no delay (a release would give the attempt back; a nack on the last of
   * maxReceiveCount attempts dead-letters it, as SQS's redrive does).
   */
  private static final dev.ordo.client.NackOptions VISIBLE_NOW = new dev.ordo.client.NackOptions(Duration.ZERO, null,
      "visibility timeout set to 0", false);

  private final SqsQueues queues;
  private final QueueProducer producer;
  private final QueueClient client;
  private final ReceivePrefetch prefetch;
  private final DeleteCoalescer deletes;
  private final Clock clock;

  MessageActions(SqsQueues queues, QueueProducer producer, QueueClient client, ReceivePrefetch prefetch,
      DeleteCoalescer deletes, Clock clock) {
    this.queues = queues;
    this.producer = producer;
    this.client = client;
    this.prefetch = prefetch;
    this.deletes = deletes;
    this.clock = clock;
  }

  private SqsQueue queue(SqsRequest r, Caller caller) throws SqsException {
    return SqsActions.existing(queues, r, caller);
  }

  private static <T> T await(CompletableFuture<T> future, Duration timeout, String what) throws SqsException {
    return SqsActions.await(future, timeout, what);
  }

  /** One message to send, checked: its item and what the answer says of it. */
  private record Checked(EnqueueRequest request, String md5OfBody, String md5OfAttributes, int size) {}

  /** The item header naming the principal that sent the message: SQS's SenderId. */
  static final String SENDER_HEADER = "sqs.sender";
  /** The item header holding a FIFO message's deduplication ID, for its MessageDeduplicationId attribute. */
  static final String DEDUP_HEADER = "sqs.dedup.id";

  private Checked checkMessage(JsonNode p, SqsQueue q, Caller sender) throws SqsException {
    String body = SqsRequest.required(p, "MessageBody");
    if (body.isEmpty()) {
      throw SqsError.MISSING_PARAMETER.with("The request must contain the parameter MessageBody.");
    }
    MessageBodies.checkCharacters(body, "the message body");
    boolean fifo = q.attributes().fifo();
    Optional<String> dedupId = SqsRequest.string(p, "MessageDeduplicationId");
    if (dedupId.isPresent() && !fifo) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("The request include parameter MessageDeduplicationId that is not"
          + " valid for this queue type");
    }
    Optional<Integer> ownDelay = SqsRequest.integer(p, "DelaySeconds", 0, 900);
    if (fifo && ownDelay.isPresent()) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("Value " + ownDelay.get() + " for parameter DelaySeconds is invalid."
          + " Reason: The request include parameter that is not valid for this queue type.");
    }
    int delay = ownDelay.orElse((int) q.attributes().delay().toSeconds());
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
    if (group.isEmpty() && fifo) {
      throw SqsError.MISSING_PARAMETER.with("The request must contain the parameter MessageGroupId.");
    }
    if (group.isPresent()) {
      if (group.get().isEmpty() || group.get().length() > 128) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("MessageGroupId is 1 to 128 characters");
      }
      b.groupKey(group.get());
    }
    if (fifo) {
      // The queue's topic is ordered by its name (decisions D60); the deduplication ID is Ordo's (D57).
      String id = dedupId.orElse(null);
      if (id == null && q.attributes().contentBasedDeduplication()) {
        id = sha256Hex(payload);
      }
      if (id == null) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("The queue should either have ContentBasedDeduplication enabled or"
            + " MessageDeduplicationId provided explicitly");
      }
      if (dev.ordo.api.Dedup.problem("MessageDeduplicationId", id) != null) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("Value " + id + " for parameter MessageDeduplicationId is invalid."
            + " Reason: 1 to 128 alphanumeric or punctuation characters.");
      }
      b.dedupId(id);
      b.header(DEDUP_HEADER, id);
    }
    if (!attributes.isEmpty()) {
      b.header(MessageAttributes.HEADER, attributes.encode());
    }
    b.header(SENDER_HEADER, sender.principal());
    try {
      return new Checked(b.build(), MessageAttributes.md5Hex(payload), attributes.md5(), size);
    } catch (IllegalArgumentException e) {
      throw SqsError.INVALID_PARAMETER_VALUE.with(e.getMessage());
    }
  }

  /** SQS's content-based deduplication ID: the SHA-256 of the body, in hex. */
  static String sha256Hex(byte[] body) {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(body));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
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
      if (request.dedupId() != null) {
        // Waits for the queue's answer: a duplicate is answered with the first message's ID, as SQS does.
        return client.enqueue(producer, request, Duration.ZERO).thenApply(dev.ordo.client.Enqueued::id);
      }
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
    if (c.request().dedupId() != null) {
      out.put("SequenceNumber", sequenceNumber(id)); // a FIFO queue's message
    }
    return out;
  }

  Map<String, Object> sendMessage(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    Checked c = checkMessage(r.params(), q, caller);
    ItemId id = await(send(c.request()), SLACK.multipliedBy(2), "the send");
    return sent(c, id);
  }

  Map<String, Object> sendMessageBatch(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    List<ObjectNode> entries = batch(r);
    Map<String, Object> failed = new LinkedHashMap<>();
    Map<String, Checked> checked = new LinkedHashMap<>();
    int total = 0;
    for (ObjectNode e : entries) {
      String id = e.get("Id").asText();
      try {
        Checked c = checkMessage(e, q, caller);
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

  Map<String, Object> receiveMessage(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    int max = r.integer("MaxNumberOfMessages", 1, MAX_BATCH).orElse(1);
    int wait = r.integer("WaitTimeSeconds", 0, 20).orElse((int) q.attributes().receiveWait().toSeconds());
    Optional<Integer> visibility = r.integer("VisibilityTimeout", 0, 43200);
    List<String> system = new ArrayList<>(r.strings("AttributeNames"));
    system.addAll(r.strings("MessageSystemAttributeNames"));
    List<String> attributeNames = r.strings("MessageAttributeNames");
    // From the queue's prefetch when it holds items, else a dequeue (which may lease more for later receives).
    List<QueueItem> items = prefetch.receive(q.ref(), max, Duration.ofSeconds(wait),
        q.attributes().visibilityTimeout());
    if (visibility.isPresent()) {
      items = withVisibility(items, visibility.get());
    }
    long now = clock.millis();
    List<Object> messages = new ArrayList<>();
    for (QueueItem item : items) {
      messages.add(message(item, q.ref(), system, attributeNames, now));
    }
    return messages.isEmpty() ? Map.of() : Map.of("Messages", messages);
  }

  /** The received items whose lease was set to {@code seconds} (0: given back at once, so not returned). */
  private List<QueueItem> withVisibility(List<QueueItem> items, int seconds) throws SqsException {
    List<CompletableFuture<CommandOutcome>> changes = new ArrayList<>();
    for (QueueItem item : items) {
      ItemId id = item.id();
      changes.add(seconds == 0 ? client.nack(id, item.leaseId(), VISIBLE_NOW)
          : client.extend(id, item.leaseId(), Duration.ofSeconds(seconds)));
    }
    List<QueueItem> kept = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      CommandOutcome o = await(changes.get(i), SLACK, "setting the visibility timeout");
      if (seconds > 0 && o.result() == CommandOutcome.Result.APPLIED) {
        QueueItem item = items.get(i);
        kept.add(o.leaseExpiresAt() == null ? item : item.withLeaseExpiresAt(o.leaseExpiresAt()));
      }
    }
    return kept;
  }

  Map<String, Object> message(QueueItem item, QueueRef ref, List<String> system, List<String> names,
      long now) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("MessageId", item.id().toString());
    m.put("ReceiptHandle", new ReceiptHandle(item.id(), item.leaseId(), ref.namespace(),
        ref.name()).encode());
    // The digest of the text as sent: an item another Ordo client enqueued with bytes that are not UTF-8
    // reads with replacement characters, and the SDK digests what it reads.
    String body = new String(item.payload(), StandardCharsets.UTF_8);
    m.put("MD5OfBody", MessageAttributes.md5Hex(body.getBytes(StandardCharsets.UTF_8)));
    m.put("Body", body);
    Map<String, Object> attributes = new TreeMap<>();
    boolean all = system.contains("All");
    if (all || system.contains("ApproximateReceiveCount")) {
      attributes.put("ApproximateReceiveCount", Integer.toString(item.attempt()));
    }
    if (all || system.contains("SentTimestamp")) {
      attributes.put("SentTimestamp", Long.toString(item.enqueuedAt().toEpochMilli()));
    }
    if ((all || system.contains("ApproximateFirstReceiveTimestamp")) && item.attempt() == 1) {
      attributes.put("ApproximateFirstReceiveTimestamp", Long.toString(now));
    }
    String sender = header(item, SENDER_HEADER);
    if ((all || system.contains("SenderId")) && sender != null) {
      attributes.put("SenderId", sender);
    }
    if ((all || system.contains("MessageGroupId")) && item.groupKey() != null) {
      attributes.put("MessageGroupId", item.groupKey());
    }
    String dedup = header(item, DEDUP_HEADER);
    if (dedup != null && (all || system.contains("MessageDeduplicationId"))) {
      attributes.put("MessageDeduplicationId", dedup);
    }
    if (dedup != null && (all || system.contains("SequenceNumber"))) {
      attributes.put("SequenceNumber", sequenceNumber(item.id()));
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

  /**
   * A FIFO message's SequenceNumber: its offset on its partition, 20 digits, so it grows with the order
   * of its message group (whose messages share a partition), as SQS's does.
   */
  static String sequenceNumber(ItemId id) {
    return String.format("%020d", id.offset());
  }

  /** An item header's value as text, or null when the item has none of that name. */
  private static String header(QueueItem item, String name) {
    byte[] value = item.headers().lastValue(name);
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }

  private static MessageAttributes attributesOf(QueueItem item) {
    byte[] value = item.headers().lastValue(MessageAttributes.HEADER);
    if (value == null) {
      return MessageAttributes.NONE;
    }
    try {
      return MessageAttributes.decode(value);
    } catch (IllegalArgumentException e) {
      return MessageAttributes.NONE; // written by another client: not SQS attributes
    }
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

  Map<String, Object> deleteMessage(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    ReceiptHandle h = handle(r.params(), q);
    deleted(await(deletes.ackAll(caller.scope(Permission.CONSUME), List.of(Map.entry(h.itemId(), h.leaseId()))).get(0),
        SLACK, "the delete"));
    return Map.of();
  }

  /**
   * A delete's outcome as SQS answers it: done, or already gone (deleted, expired): success; a handle of
   * an earlier receive (the message was received again since): success, the message is not deleted, as
   * SQS documents for a receipt handle that is not the latest.
   */
  private static void deleted(CommandOutcome o) throws SqsException {
    if (o.forbiddenNamespace() != null) {
      throw SqsError.ACCESS_DENIED.with("Access to the resource is denied: namespace " + o.forbiddenNamespace());
    }
    if (o.result() == CommandOutcome.Result.INVALID) {
      throw SqsError.RECEIPT_HANDLE_IS_INVALID.with("The receipt handle was refused: " + o.detail());
    }
  }

  Map<String, Object> deleteMessageBatch(SqsRequest r, Caller caller) throws SqsException {
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
    List<CompletableFuture<CommandOutcome>> futures = acks.isEmpty() ? List.of()
        : deletes.ackAll(caller.scope(Permission.CONSUME), acks);
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

  private CompletableFuture<CommandOutcome> changeVisibility(ReceiptHandle h, int seconds, Caller caller) {
    QueueClient.Scoped scoped = client.within(caller.scope(Permission.CONSUME));
    return seconds == 0 ? scoped.nack(h.itemId(), h.leaseId(), VISIBLE_NOW)
        : scoped.extend(h.itemId(), h.leaseId(), Duration.ofSeconds(seconds));
  }

  /** A visibility change's outcome: applied, else as SQS answers a handle whose message is not in flight on it. */
  private static void changed(CommandOutcome o, ReceiptHandle h) throws SqsException {
    if (o.forbiddenNamespace() != null) {
      throw SqsError.ACCESS_DENIED.with("Access to the resource is denied: namespace " + o.forbiddenNamespace());
    }
    switch (o.result()) {
      case APPLIED -> { }
      case STALE_LEASE -> throw SqsError.MESSAGE_NOT_INFLIGHT.with("Value " + h.encode() + " for parameter"
          + " ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout"
          + " change (it was received again, or its visibility timeout ran out).");
      case UNKNOWN_ITEM -> throw SqsError.INVALID_PARAMETER_VALUE.with("Value " + h.encode() + " for parameter"
          + " ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout"
          + " change.");
      case INVALID -> throw SqsError.INVALID_PARAMETER_VALUE.with("Refused by the queue: " + o.detail());
    }
  }

  Map<String, Object> changeVisibility(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    ReceiptHandle h = handle(r.params(), q);
    int seconds = SqsRequest.integer(r.params(), "VisibilityTimeout", 0, 43200)
        .orElseThrow(() -> SqsError.MISSING_PARAMETER.with("The request must contain the parameter VisibilityTimeout."));
    changed(await(changeVisibility(h, seconds, caller), SLACK, "the visibility change"), h);
    return Map.of();
  }

  Map<String, Object> changeVisibilityBatch(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    List<ObjectNode> entries = batch(r);
    Map<String, Object> failed = new LinkedHashMap<>();
    Map<String, ReceiptHandle> handles = new LinkedHashMap<>();
    Map<String, CompletableFuture<CommandOutcome>> futures = new LinkedHashMap<>();
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
    for (Map.Entry<String, CompletableFuture<CommandOutcome>> f : futures.entrySet()) {
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
}
