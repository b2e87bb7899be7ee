package dev.ordo.store.internal;

import dev.ordo.store.internal.FairShares.Key;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The entries, the topics' apart from the groups', each table with the entry it last found.
 *
 * <p>Why: in a profile of the stream thread in the end-to-end run with 1,000 group keys the
 * largest leaf was {@link FairShares.Key#equals} (it reads three strings behind pointers of a key stored
 * among thousands), and the topic priority's entry, looked up for every item, cost almost three
 * times what it cost without group keys, where its table held the topics alone (docs/store.md,
 * "Fair shares, topics apart from groups"). And one record looks up the same entry several times (an item's
 * arrival: its slot reads the virtual time and the group's last slot, the index its group's ready
 * count, then both counts change), each time with a key made of the same item's strings: the
 * entry last found is kept with those strings and given again when all of them are the same
 * objects and the priority the same, which compares four references and reads no string. It is
 * dropped with its entry, so it never names an entry the table no longer holds.
 */
final class FairShareEntries {
  private final Table topics = new Table();
  private final GroupTable groups = new GroupTable();

  long[] get(Key key) {
    return key.group() == null ? topics.get(key) : groups.get(key);
  }

  long[] getOrAdd(Key key) {
    return key.group() == null ? topics.getOrAdd(key) : groups.getOrAdd(key);
  }

  void remove(Key key) {
    if (key.group() == null) {
      topics.remove(key);
    } else {
      groups.remove(key);
    }
  }

  void put(Key key, long[] entry) {
    if (key.group() == null) {
      topics.put(key, entry);
    } else {
      groups.put(key, entry);
    }
  }

  int size() {
    return topics.map.size() + groups.size();
  }

  void clear() {
    topics.clear();
    groups.clear();
  }

  void forEach(BiConsumer<Key, long[]> action) {
    topics.map.forEach(action);
    groups.forEach(action);
  }

  /** A group key of a topic in its namespace: the groups' table holds one {@link Rows} per such key. */
  private static final class GroupOfTopic {
    final String namespace;
    final String topic;
    final String group;
    private final int hash;

    GroupOfTopic(String namespace, String topic, String group) {
      this.namespace = namespace;
      this.topic = topic;
      this.group = group;
      this.hash = Hashing.combine(Hashing.combine(namespace.hashCode(), topic.hashCode()), group.hashCode());
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o == this || o instanceof GroupOfTopic g && hash == g.hash && group.equals(g.group)
          && topic.equals(g.topic) && namespace.equals(g.namespace);
    }
  }

  /**
   * A group's entries at the priorities where it has items: up to {@link #SMALL} in two short arrays,
   * searched in order (a group rarely has items at more than a few priorities), then in a map, so that
   * a group spread over many priorities costs a hash look-up, not a scan.
   */
  static final class Rows {
    static final int SMALL = 8;
    private final int[] priorities = new int[SMALL];
    private final long[][] rows = new long[SMALL][];
    private int n;
    /** All the entries once there were more than {@link #SMALL} at once; then the arrays are unused. */
    private Map<Integer, long[]> many;

    long[] get(int priority) {
      if (many != null) {
        return many.get(priority);
      }
      for (int i = 0; i < n; i++) {
        if (priorities[i] == priority) {
          return rows[i];
        }
      }
      return null;
    }

    void put(int priority, long[] row) {
      if (many != null) {
        many.put(priority, row);
        return;
      }
      for (int i = 0; i < n; i++) {
        if (priorities[i] == priority) {
          rows[i] = row;
          return;
        }
      }
      if (n == SMALL) {
        many = new HashMap<>();
        for (int i = 0; i < n; i++) {
          many.put(priorities[i], rows[i]);
          rows[i] = null;
        }
        n = 0;
        many.put(priority, row);
        return;
      }
      priorities[n] = priority;
      rows[n++] = row;
    }

    /** Removes the priority's entry; whether there was one. */
    boolean remove(int priority) {
      if (many != null) {
        return many.remove(priority) != null;
      }
      for (int i = 0; i < n; i++) {
        if (priorities[i] == priority) {
          n--;
          priorities[i] = priorities[n];
          rows[i] = rows[n];
          rows[n] = null;
          return true;
        }
      }
      return false;
    }

    int count() {
      return many != null ? many.size() : n;
    }

    /** Each entry with its priority. */
    void forEach(java.util.function.ObjIntConsumer<long[]> action) {
      if (many != null) {
        many.forEach((p, row) -> action.accept(row, p));
        return;
      }
      for (int i = 0; i < n; i++) {
        action.accept(rows[i], priorities[i]);
      }
    }
  }

  /**
   * The groups' entries: one {@link Rows} per (namespace, topic, group), holding the group's entry for
   * each priority where it has items, rather than one map entry per (namespace, topic, priority, group).
   *
   * <p>Why: the entries' cost is the memory a look-up touches (benchmarks.md at 328b420, "Two more tries for issue
   * 14"). With a group's items spread over priorities, one map entry per priority is made at an item's
   * arrival and dropped at its ack, and a look-up finds it cold; one per group stays while the group
   * has any item, and each of its items' arrivals, leases and acks touches the same objects. Like
   * {@link Table}, it keeps the last entry found with the key that found it.
   */
  private static final class GroupTable {
    private final Map<GroupOfTopic, Rows> map = new HashMap<>();
    private int size;
    private Key lastKey;
    private long[] last;

    long[] get(Key key) {
      if (last != null && Table.sameObjects(key, lastKey)) {
        return last;
      }
      Rows r = map.get(new GroupOfTopic(key.namespace(), key.topic(), key.group()));
      long[] e = r == null ? null : r.get(key.priority());
      remember(key, e);
      return e;
    }

    long[] getOrAdd(Key key) {
      if (last != null && Table.sameObjects(key, lastKey)) {
        return last;
      }
      Rows r = map.computeIfAbsent(new GroupOfTopic(key.namespace(), key.topic(), key.group()), g -> new Rows());
      long[] e = r.get(key.priority());
      if (e == null) {
        e = new long[4];
        r.put(key.priority(), e);
        size++;
      }
      remember(key, e);
      return e;
    }

    void remove(Key key) {
      GroupOfTopic g = new GroupOfTopic(key.namespace(), key.topic(), key.group());
      Rows r = map.get(g);
      if (r == null) {
        return;
      }
      long[] e = r.get(key.priority());
      if (r.remove(key.priority())) {
        size--;
        if (r.count() == 0) {
          map.remove(g);
        }
        if (e == last) {
          remember(null, null);
        }
      }
    }

    void put(Key key, long[] entry) {
      Rows r = map.computeIfAbsent(new GroupOfTopic(key.namespace(), key.topic(), key.group()), g -> new Rows());
      if (r.get(key.priority()) == null) {
        size++;
      }
      r.put(key.priority(), entry);
      remember(null, null);
    }

    int size() {
      return size;
    }

    void clear() {
      map.clear();
      size = 0;
      remember(null, null);
    }

    void forEach(BiConsumer<Key, long[]> action) {
      map.forEach((g, r) -> r.forEach((row, priority) -> action.accept(new Key(g.namespace, g.topic, priority,
          g.group), row)));
    }

    private void remember(Key key, long[] e) {
      lastKey = e == null ? null : key;
      last = e;
    }
  }

  /** One table of {@link FairShareEntries}, with the entry it last found and the key that found it. */
  private static final class Table {
    final Map<Key, long[]> map = new HashMap<>();
    private Key lastKey;
    private long[] last;

    long[] get(Key key) {
      if (last != null && sameObjects(key, lastKey)) {
        return last;
      }
      long[] e = map.get(key);
      remember(key, e);
      return e;
    }

    long[] getOrAdd(Key key) {
      long[] e = get(key);
      if (e == null) {
        e = new long[4];
        map.put(key, e);
        remember(key, e);
      }
      return e;
    }

    void remove(Key key) {
      if (map.remove(key) != null && lastKey != null && key.equals(lastKey)) {
        remember(null, null);
      }
    }

    void put(Key key, long[] entry) {
      map.put(key, entry);
      remember(null, null);
    }

    void clear() {
      map.clear();
      remember(null, null);
    }

    private void remember(Key key, long[] e) {
      lastKey = e == null ? null : key;
      last = e;
    }

    /** The same strings (not merely equal ones) and priority: the same entry, known without reading a string. */
    private static boolean sameObjects(Key a, Key b) {
      return a.priority() == b.priority() && a.namespace() == b.namespace() && a.topic() == b.topic()
          && a.group() == b.group();
    }
  }
}
