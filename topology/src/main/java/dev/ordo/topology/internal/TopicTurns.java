package dev.ordo.topology.internal;

import dev.ordo.store.ReadyEntry;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Function;

/**
 * Topic weights within a namespace (docs/queue.md, "Topic weights"; decisions D59): a dequeue over
 * several topics of a namespace shares its items between the ready topics by weight. Start-time fair
 * queueing among topics, per (namespace, priority): each topic has the virtual time of its next turn;
 * among the topics whose head is at the best (priority, lane), the one whose turn comes first
 * ({@code max(its next turn, the virtual time)}) is served, and a lease moves the virtual time to that
 * turn and the topic's next turn {@code 1/weight} later, in units of {@link FairSlots#SLOT_UNIT}
 * per weight 1. So topics of weights 3 and 1 both with items ready get three items and one in every
 * four, exactly; a topic that had nothing ready starts at the virtual time, with no credit saved up.
 *
 * <p>Pure: no clock, no I/O. The turns are soft state of one partition's planner, in memory only
 * (lost when the task moves: the shares start again even), and bounded: a topic whose next turn is
 * not after the virtual time is the same as a new one and is forgotten, a state keeps at most
 * {@link #MAX_TOPICS} topics and the planner at most {@link #MAX_STATES} (namespace, priority) states
 * (the least recently used is dropped).
 */
final class TopicTurns {
  /** (namespace, priority) states kept at most. */
  static final int MAX_STATES = 1024;
  /** Topics one state keeps at most (past it, the state starts again even). */
  static final int MAX_TOPICS = 1024;
  /** The turn increment of a weight at or below 1e-6 (weights under it count as 1e-6). */
  static final long MAX_INCREMENT = FairSlots.SLOT_UNIT * 1_000_000L;

  private record Key(String namespace, int priority) {}

  private final LinkedHashMap<Key, Turns> states = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, Turns> eldest) {
      return size() > MAX_STATES;
    }
  };

  /** The turns among the topics of one (namespace, priority). */
  static final class Turns {
    long virtualTime;
    final Map<String, Long> next = new HashMap<>();
    private int pruneAt = 16;

    /** When the topic's next turn is: its own, or the virtual time if that is later. */
    long start(String topic) {
      Long own = next.get(topic);
      return own == null ? virtualTime : Math.max(own, virtualTime);
    }

    /** The topic was served one item: the virtual time moves to its turn, its next turn {@code increment} later. */
    void served(String topic, long increment) {
      long start = start(topic);
      virtualTime = start;
      long after = start + increment;
      next.put(topic, after < start ? Long.MAX_VALUE : after);
      if (next.size() > pruneAt) { // amortized: at most one pass per doubling
        next.values().removeIf(t -> t <= virtualTime); // the same as a topic never served
        if (next.size() > MAX_TOPICS) {
          next.clear();
          virtualTime = 0;
        }
        pruneAt = Math.min(MAX_TOPICS, Math.max(16, 2 * next.size()));
      }
    }
  }

  /** The turns of (namespace, priority), made when first asked for. */
  Turns of(String namespace, int priority) {
    return states.computeIfAbsent(new Key(namespace, priority), k -> new Turns());
  }

  /** (namespace, priority) states held (for tests). */
  int size() {
    return states.size();
  }

  /** Drops the namespace's states (its policy has no topic weights any more). */
  void forget(String namespace) {
    if (!states.isEmpty()) {
      states.keySet().removeIf(k -> k.namespace().equals(namespace));
    }
  }

  /**
   * The virtual-time increment of one item of {@code topic}: {@link FairSlots#SLOT_UNIT} over its
   * weight in {@code weights} (1 when not there), between 1 and {@link #MAX_INCREMENT}.
   */
  static long increment(Map<String, Double> weights, String topic) {
    Double w = weights == null ? null : weights.get(topic);
    if (w == null || !(w > 0) || w.isInfinite()) {
      return FairSlots.SLOT_UNIT;
    }
    double inc = FairSlots.SLOT_UNIT / w;
    if (inc >= MAX_INCREMENT) {
      return MAX_INCREMENT;
    }
    return Math.max(1, Math.round(inc));
  }

  /**
   * What one multi-topic serving may take, and what it took: the demand's own count per named topic,
   * plus a pool of items of any topic ({@code *}) that every candidate topic may draw on.
   */
  static final class Share {
    private final String namespace;
    private final Map<String, Double> weights;
    private final TopicTurns turns;
    /** Per named topic: its own count left. */
    private final Map<String, Integer> own;
    private int anyLeft;
    /** Per topic: items taken on its own count. */
    private final Map<String, Integer> takenOwn = new LinkedHashMap<>();
    private int takenAny;

    /**
     * @param own per named topic, the items the demand still wants of it (a copy is kept)
     * @param any items of any topic the demand still wants
     */
    Share(TopicTurns turns, String namespace, Map<String, Double> weights, Map<String, Integer> own, int any) {
      this.turns = turns;
      this.namespace = namespace;
      this.weights = weights;
      this.own = new HashMap<>(own);
      this.anyLeft = Math.max(0, any);
    }

    /** True while the demand still takes an item of {@code topic}. */
    boolean takes(String topic) {
      return anyLeft > 0 || own.getOrDefault(topic, 0) > 0;
    }

    /** One item of {@code topic} at {@code priority} was leased: counted, and its turn taken. */
    void leased(String topic, int priority) {
      int left = own.getOrDefault(topic, 0);
      if (left > 0) {
        own.put(topic, left - 1);
        takenOwn.merge(topic, 1, Integer::sum);
      } else {
        anyLeft--;
        takenAny++;
      }
      turns.of(namespace, priority).served(topic, increment(weights, topic));
    }

    /** Items taken on each named topic's own count. */
    Map<String, Integer> takenOwn() {
      return takenOwn;
    }

    /** Items taken on the any-topic count. */
    int takenAny() {
      return takenAny;
    }

    /** The turns of the namespace at {@code priority}. */
    Turns turns(int priority) {
      return turns.of(namespace, priority);
    }
  }

  /**
   * The candidates of a weighted multi-topic serving, one queue per topic in dequeue order: {@link #poll}
   * takes the best (priority, lane) there is among the topics the share still takes, and among the
   * topics whose head is there, the head of the topic whose turn comes first (ties: the heads' own
   * order). A pure structure over {@code C}, each candidate seen through its {@link ReadyEntry}.
   *
   * @param <C> a candidate
   */
  static final class Merge<C> {
    private final Share share;
    private final Function<C, ReadyEntry> entry;
    private final Comparator<C> order;
    private final Map<String, PriorityQueue<C>> queues = new LinkedHashMap<>();

    Merge(Share share, Function<C, ReadyEntry> entry) {
      this.share = share;
      this.entry = entry;
      this.order = (a, b) -> entry.apply(a).compareTo(entry.apply(b));
    }

    void add(String topic, C candidate) {
      queues.computeIfAbsent(topic, t -> new PriorityQueue<>(order)).add(candidate);
    }

    /** The topic's best candidate, or null. */
    C peek(String topic) {
      PriorityQueue<C> q = queues.get(topic);
      return q == null ? null : q.peek();
    }

    /** True while the share still takes items of {@code topic}. */
    boolean takes(String topic) {
      return share.takes(topic);
    }

    /** The next candidate by priority, lane and the topics' turns; null when none is left that the share takes. */
    C poll() {
      ReadyEntry best = null;
      for (Map.Entry<String, PriorityQueue<C>> e : queues.entrySet()) {
        C head = e.getValue().peek();
        if (head == null || !share.takes(e.getKey())) {
          continue;
        }
        ReadyEntry h = entry.apply(head);
        if (best == null || classOrder(h, best) < 0) {
          best = h;
        }
      }
      if (best == null) {
        return null;
      }
      Turns turns = share.turns(best.priority());
      PriorityQueue<C> chosen = null;
      long chosenStart = 0;
      for (Map.Entry<String, PriorityQueue<C>> e : queues.entrySet()) {
        C head = e.getValue().peek();
        if (head == null || !share.takes(e.getKey()) || classOrder(entry.apply(head), best) != 0) {
          continue;
        }
        long start = turns.start(e.getKey());
        if (chosen == null || start < chosenStart
            || (start == chosenStart && order.compare(head, chosen.peek()) < 0)) {
          chosen = e.getValue();
          chosenStart = start;
        }
      }
      return chosen.poll();
    }

    /** Priority, then lane (fresh before backlog): the order weights never change. */
    static int classOrder(ReadyEntry a, ReadyEntry b) {
      int c = Integer.compare(a.priority(), b.priority());
      return c != 0 ? c : Boolean.compare(a.sidelined(), b.sidelined());
    }
  }
}
