package dev.ordo.store;

import dev.ordo.schema.ItemState;
import dev.ordo.schema.StoredItem;
import dev.ordo.store.internal.GroupQueueKeySchema;
import dev.ordo.store.internal.OrderedBytes;
import dev.ordo.store.internal.ReadyKeySchema;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The first ready items of a (namespace, topic) on one partition, in the order dispatch serves them,
 * read without leasing anything: {@code GET /v1/namespaces/{ns}/topics/{t}/peek} and {@code ordo peek}.
 *
 * <p>The ready index holds every item without a group key, every flat item of a group (one without a
 * concurrency limit, decisions D48) and the first queued item of each group; the rest of a group's
 * queued items wait in its own queue (docs/store.md). Dispatch merges the two, and so does
 * this: a merge of the ready index, read in key order, with the next item of each group taken so
 * far, read from the group's queue. Keys are compared as dispatch compares them (priority, lane,
 * slot, ready time, offset). What it does not apply: per-group concurrency limits (a group at its
 * limit is shown in its place, where dispatch would pass over it for now), the dispatch rate, and
 * sidelining not yet done (an item moves to the backlog lane when dispatch reaches it).
 *
 * <p>Reads go through {@link Reader}, so the same code serves a live store on its stream thread and
 * interactive queries from the HTTP threads (which see the index as of its last flush: at most a
 * commit interval behind).
 */
public final class HeadPeek {
  private HeadPeek() {}

  /** Reads a partition's stores. */
  public interface Reader {
    /** Up to {@code max} keys of the index store in [{@code from}, {@code to}), in key order. */
    List<byte[]> indexRange(byte[] from, byte[] to, int max);

    /** The item appended at {@code offset}, or null. */
    StoredItem item(long offset);
  }

  /** One item of the head: its offset and state as stored. */
  public record Entry(long offset, StoredItem item) {}

  /** Ready-index keys read at a time. */
  private static final int BATCH = 64;

  /** The first {@code n} ready items of the topic in dispatch order (fewer when it has fewer). */
  public static List<Entry> first(Reader reader, String namespace, String topic, int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0, got " + n);
    }
    List<Entry> out = new ArrayList<>(Math.min(n, 1_000));
    byte[] prefix = ReadyKeySchema.prefix(namespace, topic);
    byte[] end = ReadyKeySchema.upperBound(prefix);
    // Candidates in ready-key order: group continuations (held here) and the ready index (read in batches).
    PriorityQueue<byte[]> continuations = new PriorityQueue<>(OrderedBytes::compare);
    List<byte[]> batch = reader.indexRange(prefix, end, BATCH);
    int at = 0;
    while (out.size() < n) {
      if (at == batch.size() && batch.size() == BATCH) {
        batch = reader.indexRange(OrderedBytes.successor(batch.get(batch.size() - 1)), end, BATCH);
        at = 0;
      }
      byte[] fromIndex = at < batch.size() ? batch.get(at) : null;
      byte[] fromGroup = continuations.peek();
      byte[] next;
      if (fromIndex != null && (fromGroup == null || OrderedBytes.compare(fromIndex, fromGroup) <= 0)) {
        next = fromIndex;
        at++;
      } else if (fromGroup != null) {
        next = continuations.poll();
      } else {
        break;
      }
      long offset = ReadyKeySchema.offset(next);
      StoredItem item = reader.item(offset);
      if (item == null || item.getState() != ItemState.READY) {
        continue; // changed since the index was read (interactive queries read the two stores apart)
      }
      out.add(new Entry(offset, item));
      String group = item.getItem().getGroupKey();
      if (group != null && !item.getFlat() && !item.getOrdered()) { // an ordered group: its head only // a flat item's group followers are in the index itself
        byte[] following = nextOfGroup(reader, prefix, namespace, topic, item, offset, group);
        if (following != null) {
          continuations.add(following);
        }
      }
    }
    return out;
  }

  /** The ready key of the item after {@code item} in its group's queue, or null. */
  private static byte[] nextOfGroup(Reader reader, byte[] readyPrefix, String namespace, String topic,
      StoredItem item, long offset, String group) {
    int priority = item.getItem().getPriority();
    byte[] gp = GroupQueueKeySchema.prefix(namespace, topic, priority, group);
    byte[] gk = GroupQueueKeySchema.key(gp, item.getSidelined(), item.getSlot(), item.getReadyAt(), offset);
    List<byte[]> after = reader.indexRange(OrderedBytes.successor(gk), GroupQueueKeySchema.upperBound(gp), 1);
    if (after.isEmpty()) {
      return null;
    }
    byte[] k = after.get(0);
    return ReadyKeySchema.key(readyPrefix, priority, GroupQueueKeySchema.sidelined(k), GroupQueueKeySchema.slot(k),
        GroupQueueKeySchema.readyAt(k), GroupQueueKeySchema.offset(k));
  }
}
