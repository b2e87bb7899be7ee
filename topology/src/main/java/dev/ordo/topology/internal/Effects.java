package dev.ordo.topology.internal;

import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Requester;
import dev.ordo.schema.StoredItem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one record or timer run does to a partition's queue, decided by {@link QueuePlanner} before
 * any of it is done, and done by {@link QueueProcessor}: store changes in order, items leased,
 * answers, dead letters, parked items to send through the tiers, topics whose stats or ready heads
 * changed, and counters. A refused input has a {@link #refusal()} and nothing else but the answer
 * to its requester: nothing is half-applied.
 */
public final class Effects {
  /** The store holds {@code before} for {@code offset} (null: nothing) and is to hold {@code after} (null: delete). */
  public record Change(long offset, StoredItem before, StoredItem after) {}

  /** An outcome ({@code Outcome} or {@code Outcomes}) for a requester; {@code urgent}: it waits for it. */
  public record Answer(Requester requester, Object body, boolean urgent) {}

  /** Items leased to one requester, in dispatch order. */
  public record Leased(Requester requester, List<DeliveredItem> items, boolean urgent) {}

  /** An item removed from the queue and written to the dead letters. */
  public record DeadLetter(long offset, StoredItem item, DeadLetterReason reason, String detail) {}

  /** A PARKED item whose re-entry goes into {@code tier}, due back at {@code dueAt}. */
  public record Park(long offset, long dueAt, Duration tier) {}

  /** Why an input was refused, and the counter it goes to; it is dead-lettered with its raw bytes. */
  public record Refusal(String reason, String metric) {}

  private final List<Change> changes = new ArrayList<>();
  private final List<Answer> answers = new ArrayList<>();
  private final Map<String, Leased> leased = new LinkedHashMap<>();
  private final List<DeadLetter> deadLetters = new ArrayList<>();
  private final List<Park> parks = new ArrayList<>();
  private final Set<TopicRef> changedTopics = new LinkedHashSet<>();
  private final Set<TopicRef> readyTopics = new LinkedHashSet<>();
  private final Map<String, Long> counts = new LinkedHashMap<>();
  private Refusal refusal;

  public List<Change> changes() {
    return changes;
  }

  public List<Answer> answers() {
    return answers;
  }

  /** Items leased, by requester, in the order the requesters were first served. */
  public Iterable<Leased> leased() {
    return leased.values();
  }

  public List<DeadLetter> deadLetters() {
    return deadLetters;
  }

  public List<Park> parks() {
    return parks;
  }

  /** (namespace, topic) pairs whose counts changed: their stats are due. */
  public Set<TopicRef> changedTopics() {
    return changedTopics;
  }

  /** (namespace, topic) pairs that got ready items: open demands wanting them are to be served. */
  public Set<TopicRef> readyTopics() {
    return readyTopics;
  }

  /** Counter increments by {@link dev.ordo.topology.QueueMetrics} name. */
  public Map<String, Long> counts() {
    return counts;
  }

  /** Null unless the input was refused. */
  public Refusal refusal() {
    return refusal;
  }

  public boolean isEmpty() {
    return changes.isEmpty() && answers.isEmpty() && leased.isEmpty() && deadLetters.isEmpty() && parks.isEmpty()
        && changedTopics.isEmpty() && readyTopics.isEmpty() && counts.isEmpty() && refusal == null;
  }

  // ---- built by the planner ----

  void change(long offset, StoredItem before, StoredItem after) {
    changes.add(new Change(offset, before, after));
  }

  void answer(Requester requester, Object body, boolean urgent) {
    answers.add(new Answer(requester, body, urgent));
  }

  void lease(Requester requester, DeliveredItem item, boolean urgent) {
    add(leased, requester, List.of(item), urgent);
  }

  /**
   * Adds {@code items} leased to {@code requester} to {@code byRequester} (requester id → its items, in
   * dispatch order), urgent when any of them is.
   */
  static void add(Map<String, Leased> byRequester, Requester requester, List<DeliveredItem> items, boolean urgent) {
    Leased l = byRequester.get(requester.getId());
    if (l == null) {
      l = new Leased(requester, new ArrayList<>(), urgent);
      byRequester.put(requester.getId(), l);
    } else if (urgent && !l.urgent()) {
      l = new Leased(requester, l.items(), true);
      byRequester.put(requester.getId(), l);
    }
    l.items().addAll(items);
  }

  void deadLetter(long offset, StoredItem item, DeadLetterReason reason, String detail) {
    deadLetters.add(new DeadLetter(offset, item, reason, detail));
  }

  void park(long offset, long dueAt, Duration tier) {
    parks.add(new Park(offset, dueAt, tier));
  }

  void topicChanged(String namespace, String topic) {
    changedTopics.add(new TopicRef(namespace, topic));
  }

  void topicReady(String namespace, String topic) {
    readyTopics.add(new TopicRef(namespace, topic));
  }

  void count(String metric) {
    counts.merge(metric, 1L, Long::sum);
  }

  /** Items a command named with a lease that is not theirs (for per-topic meters); made when first needed. */
  private List<StoredItem> staleLeases;

  void staleLease(StoredItem item) {
    if (staleLeases == null) {
      staleLeases = new ArrayList<>(1);
    }
    staleLeases.add(item);
  }

  public List<StoredItem> staleLeases() {
    return staleLeases == null ? List.of() : staleLeases;
  }

  /** Rate-limited waits by topic (a group passed over at its rate; for the per-topic meters); made when first needed. */
  private Map<TopicRef, Long> groupRateWaits;

  void groupRateWait(String namespace, String topic) {
    if (groupRateWaits == null) {
      groupRateWaits = new LinkedHashMap<>();
    }
    groupRateWaits.merge(new TopicRef(namespace, topic), 1L, Long::sum);
  }

  /** Rate-limited waits by topic: groups passed over at their rate ({@code group.rate_limited}). */
  public Map<TopicRef, Long> groupRateWaits() {
    return groupRateWaits == null ? Map.of() : groupRateWaits;
  }

  void count(String metric, long n) {
    counts.merge(metric, n, Long::sum);
  }

  /** Forgets everything decided so far and keeps only the refusal (and then an answer to it). */
  void refuse(String reason, String metric) {
    changes.clear();
    answers.clear();
    leased.clear();
    deadLetters.clear();
    parks.clear();
    changedTopics.clear();
    readyTopics.clear();
    counts.clear();
    groupRateWaits = null;
    refusal = new Refusal(reason, metric);
  }
}
