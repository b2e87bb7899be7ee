package dev.ordo.store.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The first live keys of each key prefix (a topic's ready range, its age range), held on the heap
 * so that reading a topic's head does not seek RocksDB at all.
 *
 * <p>Why: a seek steps over every tombstone between its start and the first live key. Scan
 * cursors ({@link ScanCursors}) skip the tombstones <em>behind</em> the head, but a queue of several
 * priorities also leaves them <em>ahead</em> of it: every item popped from priority 1 leaves a
 * tombstone that a head read starting in priority 0 crawls over, again on every read. In a queue
 * kept nearly empty by its consumers (each item popped right after it arrives) that made every
 * dispatch cost a crawl over all the run's pops (ordo bench, Ordo end to end).
 *
 * <p><b>Invariant</b>, per prefix held: {@code keys} is exactly the set of live keys of the prefix
 * smaller than {@code frontier}; a null frontier means every live key of the prefix is in {@code keys}.
 * Kept by:
 * <ol>
 *   <li>a read wanting more keys than held, with a frontier: the store is scanned from the frontier
 *       for a batch of live keys, which join {@code keys}; the frontier moves past the last one, or
 *       becomes null when the scan reached the end of the prefix;</li>
 *   <li>a key inserted below the frontier joins {@code keys}; above it, nothing changes (it is not
 *       below the frontier);</li>
 *   <li>a key removed leaves {@code keys};</li>
 *   <li>more than {@code capacity} keys held: the largest is dropped and becomes the frontier (every
 *       live key below it is still held).</li>
 * </ol>
 * Every write goes through {@code PriorityStore.transition}, which reports every insert and
 * removal, so none can be missed. A prefix not held starts with its frontier at the prefix itself
 * (nothing known): losing the heads (a new instance after a task moves, or the cap on prefixes)
 * costs one scan from the prefix, never a wrong answer. Only the frontier's scans reach RocksDB, and
 * the frontier moves forward over live keys only, so tombstones ahead of the head are crawled once
 * (by the first read after a start), not on every read.
 */
public final class HeadCache {
  /** Reads up to {@code max} live keys of the prefix at or after {@code from}, in order. */
  public interface Loader {
    List<byte[]> load(byte[] from, int max);
  }

  private static final int MAX_PREFIXES = 10_000;
  private static final int MIN_LOAD = 64;

  private final int capacity;
  private final int minLoad;
  private final Map<Prefix, Head> heads = new HashMap<>();

  /** A prefix as a map key, hashed by {@link Hashing#bytes} (its polynomial hash collides, see there). */
  private static final class Prefix {
    final byte[] bytes;
    final int hash;

    Prefix(byte[] bytes) {
      this.bytes = bytes;
      this.hash = Hashing.bytes(bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Prefix p && hash == p.hash && java.util.Arrays.equals(bytes, p.bytes);
    }
  }

  private static final class Head {
    final SortedKeys keys = new SortedKeys();
    byte[] frontier;

    Head(byte[] frontier) {
      this.frontier = frontier;
    }
  }

  /** @param capacity keys held per prefix (more only while a read asks for more) */
  public HeadCache(int capacity) {
    this(capacity, MIN_LOAD);
  }

  /**
   * @param capacity keys held per prefix (more only while a read asks for more)
   * @param minLoad keys read from the store at least, when a read needs any (many small prefixes:
   *     few, so that the heap holds little per prefix)
   */
  public HeadCache(int capacity, int minLoad) {
    if (capacity < 1 || minLoad < 1) {
      throw new IllegalArgumentException("capacity and minLoad must be positive, got " + capacity + ", " + minLoad);
    }
    this.capacity = capacity;
    this.minLoad = minLoad;
  }

  /** The first {@code n} live keys of {@code prefix} in key order (fewer if it has fewer). */
  public List<byte[]> first(byte[] prefix, int n, Loader loader) {
    List<byte[]> out = new ArrayList<>(Math.min(n, 1024));
    if (n <= 0) {
      return out;
    }
    Head h = held(prefix);
    load(h, n, loader);
    for (int i = 0; i < n && i < h.keys.size(); i++) {
      out.add(h.keys.get(i));
    }
    trim(h, Math.max(capacity, n));
    return out;
  }

  /**
   * The first live key of {@code prefix} (null when none), read before {@code key}, a key the
   * prefix did not hold, is {@link #inserted}: the two in one look-up of the prefix, for an item
   * joining its group's queue ({@code ReadyView.joinQueue}). The caller writes the key to the
   * store after this call, so that a read of the store here does not find it already.
   */
  public byte[] firstThenInserted(byte[] prefix, byte[] key, Loader loader) {
    Head h = held(prefix);
    load(h, 1, loader);
    byte[] first = h.keys.isEmpty() ? null : h.keys.get(0);
    insert(h, key);
    return first;
  }

  /** What {@link #removedFrom} found: whether the key was the prefix's first, and if so the next (null: none). */
  public record Removal(boolean wasFirst, byte[] next) {}

  /**
   * {@link #removed}, telling whether the key was the prefix's first live key and, if so, the live
   * key after it: in one look-up of the prefix, for an item leaving its group's queue
   * ({@code ReadyView.leaveQueue}). The caller deletes the key from the store after this
   * call: the key and the one after it are read first (a read of the store finds both), so the next
   * is known without reading the store again.
   */
  public Removal removedFrom(byte[] prefix, byte[] key, Loader loader) {
    Head h = held(prefix);
    load(h, 2, loader);
    boolean wasFirst = !h.keys.isEmpty() && Arrays.equals(h.keys.get(0), key);
    h.keys.remove(key);
    byte[] next = wasFirst && !h.keys.isEmpty() ? h.keys.get(0) : null;
    trim(h, capacity);
    return new Removal(wasFirst, next);
  }

  /** The prefix's held keys, made (nothing known, the frontier at the prefix) when not held. */
  private Head held(byte[] prefix) {
    Prefix p = new Prefix(prefix);
    Head h = heads.get(p);
    if (h == null) {
      if (heads.size() >= MAX_PREFIXES) {
        heads.clear();
      }
      h = new Head(prefix);
      heads.put(p, h);
    }
    return h;
  }

  /** Reads from the store until {@code n} keys are held or none are left past the frontier. */
  private void load(Head h, int n, Loader loader) {
    while (h.keys.size() < n && h.frontier != null) {
      int want = Math.max(minLoad, Math.max(n, capacity / 4) - h.keys.size());
      List<byte[]> loaded = loader.load(h.frontier, want);
      for (byte[] k : loaded) {
        h.keys.add(k);
      }
      h.frontier = loaded.size() < want ? null : OrderedBytes.successor(loaded.get(loaded.size() - 1));
    }
  }

  /**
   * The caller knows that {@code prefix} holds no live key now (the store's fair shares count no
   * ready item of the group): held from here on as complete, so the keys inserted next are all it
   * needs and no read of it goes to the store. Keeps the invariant: no live key, none below any
   * frontier, so an empty set with no frontier is exact.
   */
  public void empty(byte[] prefix) {
    emptied(prefix);
  }

  private Head emptied(byte[] prefix) {
    Prefix p = new Prefix(prefix);
    Head h = heads.get(p);
    if (h == null) {
      if (heads.size() >= MAX_PREFIXES) {
        heads.clear();
      }
      h = new Head(null);
      heads.put(p, h);
    } else {
      h.keys.clear();
      h.frontier = null;
    }
    return h;
  }

  /**
   * {@link #empty}, then {@link #inserted} {@code key}: the caller knows that {@code key} is the
   * prefix's only live key once written (its group had no other ready item), in one look-up.
   */
  public void only(byte[] prefix, byte[] key) {
    emptied(prefix).keys.add(key);
  }

  public void inserted(byte[] prefix, byte[] key) {
    Head h = heads.get(new Prefix(prefix));
    if (h != null) {
      insert(h, key);
    }
  }

  private void insert(Head h, byte[] key) {
    if (h.frontier == null || OrderedBytes.compare(key, h.frontier) < 0) {
      h.keys.add(key);
      trim(h, capacity);
    }
  }

  public void removed(byte[] prefix, byte[] key) {
    Head h = heads.get(new Prefix(prefix));
    if (h != null) {
      h.keys.remove(key);
    }
  }

  private static void trim(Head h, int max) {
    while (h.keys.size() > max) {
      h.frontier = h.keys.pollLast();
    }
  }
}
