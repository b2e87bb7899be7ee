package dev.ordo.topology.internal;

import dev.ordo.schema.Rate;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Per-group rate limits on one partition (docs/queue.md, "Group rates"; decisions D61): a token bucket
 * per (namespace, group key) that leases items at a rate, soft state in the planner's memory. Pure: the
 * time and each group's rate are passed in (a policy may change the rate between two calls; the bucket
 * keeps its tokens and takes the new rate and capacity from then on).
 *
 * <p><b>A new bucket starts empty as of the partition's takeover</b> ({@link #started}): it holds
 * {@code min(burst, perSecond × (now − takeover))} tokens. So a group that was leasing on the instance
 * that owned the partition before cannot get a second burst right after a failover: over any window,
 * the leases before the takeover are at most {@code burst + rate × (takeover − start)} (that bucket's
 * bound) and those after at most {@code rate × (end − takeover)}, together {@code burst + rate × window},
 * the same bound as without a failover. The price: for {@code burst / perSecond} after a takeover a
 * group gets less than its burst, and a group's very first lease after it waits up to {@code 1 / perSecond}.
 *
 * <p><b>Bounded state</b>: a full bucket is the same as one made afresh (once {@code burst / perSecond} has
 * passed since the takeover; before, a fresh one holds fewer tokens), so {@link #prune} drops full buckets
 * (of a group without a rate any more: full under the rate it last leased under). At most {@code maxBuckets} are kept; the least recently used
 * goes first, and since it may not have been full, buckets made after that start empty as of then too
 * (never more tokens than the dropped one would have had).
 */
final class GroupRates {
  /** Buckets one partition keeps at most (groups leasing under a rate within the last {@code burst / rate}). */
  static final int MAX_BUCKETS = 10_000;

  /** A group of a namespace. */
  record Key(String namespace, String group) {}

  private final int maxBuckets;
  /** Access order: the eldest is the least recently used. */
  private final LinkedHashMap<Key, Held> buckets = new LinkedHashMap<>(16, 0.75f, true);

  /** A group's bucket and the rate it was last used with (to tell when it is full once the policy drops the rate). */
  private static final class Held {
    final TokenBucket bucket;
    Rate rate;

    Held(TokenBucket bucket, Rate rate) {
      this.bucket = bucket;
      this.rate = rate;
    }
  }
  /** A new bucket is empty as of this time (the takeover, or the last eviction), then fills at its rate. */
  private long emptySince = Long.MIN_VALUE;

  GroupRates() {
    this(MAX_BUCKETS);
  }

  GroupRates(int maxBuckets) {
    if (maxBuckets < 1) {
      throw new IllegalArgumentException("maxBuckets must be positive, got " + maxBuckets);
    }
    this.maxBuckets = maxBuckets;
  }

  /** The partition's takeover: new buckets are empty as of the first time given here (later calls change nothing). */
  void started(long now) {
    if (emptySince == Long.MIN_VALUE) {
      emptySince = now;
    }
  }

  /** True when the group may lease an item now under {@code rate}. Takes nothing. */
  boolean mayLease(String namespace, String group, Rate rate, long now) {
    return bucket(namespace, group, rate, now).available(rate.getPerSecond(), capacity(rate), now) >= 1;
  }

  /**
   * True when the group would have a token now under {@code rate}, as {@link #mayLease} says, but without
   * making a bucket for a group that has none: what a fresh one would hold.
   */
  boolean wouldLease(String namespace, String group, Rate rate, long now) {
    Held held = buckets.isEmpty() ? null : buckets.get(new Key(namespace, group));
    if (held != null) {
      return held.bucket.available(rate.getPerSecond(), capacity(rate), now) >= 1;
    }
    long since = emptySince == Long.MIN_VALUE ? now : emptySince;
    double fresh = Math.min(capacity(rate), Math.max(0, now - since) * rate.getPerSecond() / 1000.0);
    return fresh + 1e-9 >= 1;
  }

  /** Records a lease of the group (after {@link #mayLease} said yes at the same {@code now}). */
  void leased(String namespace, String group, Rate rate, long now) {
    bucket(namespace, group, rate, now).take(1, rate.getPerSecond(), capacity(rate), now);
  }

  /** How long until the group may lease again (0: now). */
  long msUntilOne(String namespace, String group, Rate rate, long now) {
    return bucket(namespace, group, rate, now).msUntilOne(rate.getPerSecond(), capacity(rate), now);
  }

  /**
   * Drops the buckets that are full at {@code now}: a fresh one holds as much, or less. A group that
   * {@code rateOf} gives no rate any more (null) is judged by the rate it last leased under: its bucket
   * goes once it has filled, so a rate lifted and set again cannot hand out a second burst early.
   */
  void prune(long now, BiFunction<String, String, Rate> rateOf) {
    for (Iterator<Map.Entry<Key, Held>> it = buckets.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Key, Held> e = it.next();
      Rate rate = rateOf.apply(e.getKey().namespace(), e.getKey().group());
      if (rate == null) {
        rate = e.getValue().rate;
      }
      double capacity = capacity(rate);
      if (e.getValue().bucket.available(rate.getPerSecond(), capacity, now) >= (long) Math.floor(capacity)) {
        it.remove();
      }
    }
  }

  int size() {
    return buckets.size();
  }

  /** A bucket's capacity: the rate's burst, at least one. */
  static double capacity(Rate rate) {
    return Math.max(1, rate.getBurst());
  }

  private TokenBucket bucket(String namespace, String group, Rate rate, long now) {
    Key key = new Key(namespace, group);
    Held held = buckets.get(key);
    if (held != null) {
      held.rate = rate;
      return held.bucket;
    }
    started(now);
    if (buckets.size() >= maxBuckets) {
      Iterator<Key> eldest = buckets.keySet().iterator();
      eldest.next();
      eldest.remove();
      // The dropped bucket may have been short of tokens: a bucket made from now on starts empty as of now,
      // so if it was the dropped group's, it holds no more than the dropped bucket would have.
      emptySince = Math.max(emptySince, now);
    }
    TokenBucket b = new TokenBucket(0, emptySince);
    buckets.put(key, new Held(b, rate));
    return b;
  }
}
