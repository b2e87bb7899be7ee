package dev.ordo.server.sqs;

import dev.ordo.client.QueueClient;
import dev.ordo.client.TopicActivity;
import dev.ordo.server.auth.Caller;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The queue actions: CreateQueue, GetQueueUrl, ListQueues, DeleteQueue, Get/SetQueueAttributes, the
 * tags and ListDeadLetterSourceQueues, over {@link SqsQueues} (and the topics table for the counts).
 */
final class QueueActions {
  private static final Duration SLACK = Duration.ofSeconds(15);

  private final SqsQueues queues;
  private final QueueClient client;
  private final SqsConfig config;
  private final Clock clock;

  QueueActions(SqsQueues queues, QueueClient client, SqsConfig config, Clock clock) {
    this.queues = queues;
    this.client = client;
    this.config = config;
    this.clock = clock;
  }

  private String namespaceFor(SqsRequest r, SqsActions.Target target) throws SqsException {
    Optional<String> owner = r.string("QueueOwnerAWSAccountId");
    String ns = owner.orElse(target.pathNamespace().orElse(config.namespace()));
    QueueRef.checkNamespace(ns);
    return ns;
  }

  Map<String, Object> createQueue(SqsRequest r, Caller caller, SqsActions.Target target) throws SqsException {
    String name = r.required("QueueName");
    QueueRef.checkName(name);
    QueueRef ref = new QueueRef(namespaceFor(r, target), name);
    SqsAccess.check(caller, r.action(), ref.namespace());
    Map<String, String> given = r.stringMap("Attributes");
    QueueAttributes attributes = QueueAttributes.of(given, ref.fifo());
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

  Map<String, Object> getQueueUrl(SqsRequest r, Caller caller, SqsActions.Target target) throws SqsException {
    String name = r.required("QueueName");
    QueueRef ref = new QueueRef(namespaceFor(r, target), name);
    SqsAccess.check(caller, r.action(), ref.namespace());
    if (queues.get(ref).isEmpty()) {
      throw nonExistent();
    }
    return Map.of("QueueUrl", ref.url(target.endpoint()));
  }

  Map<String, Object> listQueues(SqsRequest r, Caller caller, SqsActions.Target target) throws SqsException {
    String prefix = r.string("QueueNamePrefix").orElse("");
    int max = r.integer("MaxResults", 1, 1000).orElse(1000);
    String after = r.string("NextToken").map(QueueActions::unToken).orElse(null);
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

  Map<String, Object> deleteQueue(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    queues.remove(q.ref());
    return Map.of();
  }

  Map<String, Object> getQueueAttributes(SqsRequest r, Caller caller) throws SqsException {
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

  Map<String, Object> setQueueAttributes(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    Map<String, String> given = r.stringMap("Attributes");
    QueueAttributes attributes = q.attributes().with(given);
    checkRedriveTarget(attributes, q.ref());
    queues.put(q.withAttributes(attributes, clock.millis()));
    return Map.of();
  }

  Map<String, Object> tagQueue(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    Map<String, String> tags = new TreeMap<>(q.tags());
    tags.putAll(r.stringMap("Tags"));
    checkTags(tags);
    queues.put(q.withTags(tags, clock.millis()));
    return Map.of();
  }

  Map<String, Object> untagQueue(SqsRequest r, Caller caller) throws SqsException {
    SqsQueue q = queue(r, caller);
    Map<String, String> tags = new TreeMap<>(q.tags());
    r.strings("TagKeys").forEach(tags::remove);
    queues.put(q.withTags(tags, clock.millis()));
    return Map.of();
  }

  Map<String, Object> listQueueTags(SqsRequest r, Caller caller) throws SqsException {
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

  Map<String, Object> listDeadLetterSourceQueues(SqsRequest r, Caller caller, SqsActions.Target target)
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


  private static <T> T await(CompletableFuture<T> future, Duration timeout, String what) throws SqsException {
    return SqsActions.await(future, timeout, what);
  }

  private SqsQueue queue(SqsRequest r, Caller caller) throws SqsException {
    return SqsActions.existing(queues, r, caller);
  }

  private static SqsException nonExistent() {
    return SqsActions.nonExistent();
  }
}
