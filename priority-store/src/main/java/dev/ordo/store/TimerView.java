package dev.ordo.store;

import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.OrderedBytes;
import dev.ordo.store.internal.ScanCursors;
import dev.ordo.store.internal.TimerKeySchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The timer index ({@code [0x30]}, {@link TimerKeySchema}): a DELAYED item's DUE timer at its ready
 * time, a LEASED item's LEASE timer at its lease's end, and any item's TTL timer at its
 * {@code expiresAt}. DUE and TTL timers live in the index store, read from a cursor ({@link ScanCursors})
 * and not at all before a learnt quiet-until time; LEASE timers live on the heap between an open and
 * an orderly close (a lease is put and removed within seconds: two RocksDB writes per item saved).
 */
final class TimerView {
  /** Slots of {@link #keysOf}: the state's timer (DUE or LEASE), the TTL timer. */
  static final int STATE = 0;
  static final int TTL = 1;
  private static final TimerEntry[] NONE = new TimerEntry[2];

  private final IndexStore index;
  private ScanCursors cursors = new ScanCursors();
  /** The LEASE timers, in memory between {@link #load} and {@link #save}: at most as many as items leased. */
  private final TreeSet<TimerEntry> leases = new TreeSet<>(
      Comparator.comparingLong(TimerEntry::dueAt).thenComparingLong(TimerEntry::offset));
  /**
   * Per timer kind (by ordinal), a time before which no live timer of the kind is due, learnt by a
   * scan that found nothing due and lowered by every timer added; {@code Long.MIN_VALUE}: unknown.
   * Until then {@link #due} answers without touching the store. Why: live timers lie in the
   * future (leases run 30 s) behind the tombstones of the many removed before their time (acked
   * leases), and a RocksDB seek crawls over those to the first live key on every scan.
   */
  private final long[] quietUntil = new long[TimerKind.values().length];

  TimerView(IndexStore index) {
    this.index = index;
    Arrays.fill(quietUntil, Long.MIN_VALUE);
  }

  /** The timers of an item: {@code [STATE, TTL]}, null where it has none (a pure function of the item). */
  static TimerEntry[] keysOf(long offset, StoredItem item) {
    if (none(item)) {
      return NONE;
    }
    TimerKind kind = stateKind(item);
    return new TimerEntry[] {
        kind == null ? null : new TimerEntry(kind, stateDue(item), offset),
        item.getExpiresAt() == null ? null : new TimerEntry(TimerKind.TTL, item.getExpiresAt(), offset)};
  }

  /** True when both items have the same timers, without making them (the common case: a change of neither). */
  static boolean sameKeys(StoredItem a, StoredItem b) {
    if (a == null || b == null) {
      return none(a) && none(b);
    }
    TimerKind kind = stateKind(a);
    return kind == stateKind(b) && (kind == null || stateDue(a) == stateDue(b))
        && Objects.equals(a.getExpiresAt(), b.getExpiresAt());
  }

  /** True when the item has no timer (or is not there). */
  private static boolean none(StoredItem item) {
    return item == null || item.getExpiresAt() == null && stateKind(item) == null;
  }

  private static TimerKind stateKind(StoredItem item) {
    return switch (item.getState()) {
      case DELAYED -> TimerKind.DUE;
      case LEASED -> item.getLeaseExpiresAt() == null ? null : TimerKind.LEASE;
      default -> null;
    };
  }

  private static long stateDue(StoredItem item) {
    return stateKind(item) == TimerKind.DUE ? item.getReadyAt() : item.getLeaseExpiresAt();
  }

  /** Moves the item's timers from what {@code before} had to what {@code after} has. */
  void change(long offset, StoredItem before, StoredItem after) {
    if (sameKeys(before, after)) {
      return;
    }
    TimerEntry[] b = keysOf(offset, before);
    TimerEntry[] a = keysOf(offset, after);
    for (int i = STATE; i <= TTL; i++) {
      if (KeyDiff.removed(b, a, i)) {
        remove(b[i]);
      }
    }
    for (int i = STATE; i <= TTL; i++) {
      if (KeyDiff.added(b, a, i)) {
        add(a[i]);
      }
    }
  }

  private void add(TimerEntry t) {
    if (t.kind() == TimerKind.LEASE) {
      leases.add(t);
      return;
    }
    quietUntil[t.kind().ordinal()] = Math.min(quietUntil[t.kind().ordinal()], t.dueAt());
    byte[] key = TimerKeySchema.key(t.kind().code, t.dueAt(), t.offset());
    index.put(key);
    cursors.inserted(TimerKeySchema.prefix(t.kind().code), key);
  }

  private void remove(TimerEntry t) {
    if (t.kind() == TimerKind.LEASE) {
      leases.remove(t);
      return;
    }
    byte[] key = TimerKeySchema.key(t.kind().code, t.dueAt(), t.offset());
    index.delete(key);
    cursors.removed(TimerKeySchema.prefix(t.kind().code), key);
  }

  /** See {@link PriorityStore#nextTimerDue}. */
  long nextDue() {
    long next = leases.isEmpty() ? Long.MAX_VALUE : leases.first().dueAt();
    next = Math.min(next, quietUntil[TimerKind.DUE.ordinal()]);
    return Math.min(next, quietUntil[TimerKind.TTL.ordinal()]);
  }

  /** Up to {@code max} timers of {@code kind} due at or before {@code now}, earliest first. */
  List<TimerEntry> due(TimerKind kind, long now, int max) {
    byte[] prefix = TimerKeySchema.prefix(kind.code);
    byte[] upper = TimerKeySchema.dueBy(kind.code, now);
    List<TimerEntry> out = new ArrayList<>();
    if (max <= 0) {
      // An empty answer here means "not looked", not "none due": it must not move the cursor.
      return out;
    }
    if (kind == TimerKind.LEASE) {
      for (TimerEntry t : leases) {
        if (t.dueAt() > now || out.size() == max) {
          break;
        }
        out.add(t);
      }
      return out;
    }
    if (now < quietUntil[kind.ordinal()]) {
      return out;
    }
    byte[] start = cursors.start(prefix);
    if (OrderedBytes.compare(start, upper) <= 0) {
      for (byte[] key : index.keys(start, upper, max)) {
        if (out.isEmpty()) {
          cursors.found(prefix, key);
        }
        out.add(new TimerEntry(kind, TimerKeySchema.dueAt(key), TimerKeySchema.offset(key)));
      }
    }
    if (out.isEmpty()) {
      cursors.emptyUpTo(prefix, upper);
      quietUntil[kind.ordinal()] = firstDueAfter(kind, upper);
    }
    return out;
  }

  /** Due time of the first live timer of {@code kind} after {@code after}; MAX_VALUE when none. */
  private long firstDueAfter(TimerKind kind, byte[] after) {
    byte[] upper = TimerKeySchema.dueBy(kind.code, Long.MAX_VALUE);
    if (OrderedBytes.compare(after, upper) >= 0) {
      return Long.MAX_VALUE;
    }
    List<byte[]> next = index.keys(OrderedBytes.successor(after), upper, 1);
    return next.isEmpty() ? Long.MAX_VALUE : TimerKeySchema.dueAt(next.get(0));
  }

  /** Forgets everything held on the heap (a rebuild starts). */
  void reset() {
    cursors = new ScanCursors();
    leases.clear();
    Arrays.fill(quietUntil, Long.MIN_VALUE);
  }

  /** Reads the LEASE timers {@link #save} left in the index store. */
  void load() {
    leases.clear();
    try (KeyValueIterator<Bytes, byte[]> it = index.prefixScan(TimerKeySchema.prefix(TimerKind.LEASE.code))) {
      while (it.hasNext()) {
        byte[] key = it.next().key.get();
        leases.add(new TimerEntry(TimerKind.LEASE, TimerKeySchema.dueAt(key), TimerKeySchema.offset(key)));
      }
    }
  }

  /** Writes the LEASE timers to the index store (an orderly close), replacing what was there. */
  void save() {
    index.deletePrefix(TimerKeySchema.prefix(TimerKind.LEASE.code));
    for (TimerEntry t : leases) {
      index.store().put(Bytes.wrap(TimerKeySchema.key(TimerKind.LEASE.code, t.dueAt(), t.offset())), IndexStore.EMPTY);
    }
  }
}
