package dev.ordo.client;

import java.time.Duration;
import java.util.Map;

/**
 * A namespace's policy (docs/queue.md, "Namespace policies"): what its items get when they leave a
 * field empty, and the limits that keep one namespace's surge from becoming everyone's backlog.
 * Every field is optional; a namespace without a policy, or a field left null, takes the server's
 * setting (no limit).
 *
 * @param defaults for the namespace's items that do not set the field; null: none
 * @param admissionRate items admitted a second across the namespace; the rest wait in OVERFLOW
 * @param maxBacklog items waiting (ready, delayed, parked) across the namespace: at it producers are
 *     refused ({@link BacklogFullException}, HTTP 429) and arrivals wait in OVERFLOW ({@code >= 1})
 * @param dispatchRate items leased a second across the namespace; demands wait for it
 * @param sidelineAfter a ready item ready for longer than this (since it last became ready) when dispatch reaches it moves
 *     to its topic's backlog lane, served only when the fresh lane has nothing ready at its priority
 *     ({@code > 0}, whole milliseconds)
 * @param groups fair queueing among the namespace's group keys: weights and concurrency limits
 * @param dedupWindow how long a deduplication ID refuses duplicates after its first item was taken in
 *     (decisions D57; {@code 0} turns deduplication off, at most {@link #MAX_DEDUP_WINDOW}); null: 5 minutes
 * @param topicWeights per topic, its weight within the namespace ({@code > 0}, finite; default 1): a dequeue over
 *     several topics ({@code *}, or a lease consumer's topics) shares its items between the ready topics by
 *     weight, within the priority order (docs/queue.md, "Topic weights"); never null (empty: no weights)
 * @param ordered true: the items of each group key of the namespace's topics are leased one at a time in
 *     enqueue order (docs/queue.md, "Ordered groups"; decisions D60); null: false
 * @param orderedTopics per topic, ordered or not in place of {@code ordered}; null: none
 * @param shards shuffle sharding: each group key's items spread over its own combination of this many of the
 *     queue's partitions, the producer picking the least loaded, a group's concurrency limit and rate split
 *     over its shards (docs/queue.md, "Shuffle sharding"; decisions D61, D62; 1 to {@link dev.ordo.api.Shards#MAX});
 *     null or 1: one partition per group key
 */
public record NamespacePolicy(Defaults defaults, Rate admissionRate, Long maxBacklog, Rate dispatchRate,
    Duration sidelineAfter, Groups groups, Duration dedupWindow, Map<String, Double> topicWeights,
    Boolean ordered, Map<String, Boolean> orderedTopics, Integer shards) {
  /** The longest deduplication window a policy may set. */
  public static final Duration MAX_DEDUP_WINDOW = Duration.ofDays(1);

  public NamespacePolicy {
    if (dedupWindow != null && (dedupWindow.isNegative() || dedupWindow.compareTo(MAX_DEDUP_WINDOW) > 0)) {
      throw new IllegalArgumentException("dedupWindowMs must be between 0 and " + MAX_DEDUP_WINDOW.toMillis()
          + " (a day), got " + dedupWindow.toMillis());
    }
    if (maxBacklog != null && maxBacklog < 1) {
      throw new IllegalArgumentException("maxBacklog must be at least 1, got " + maxBacklog);
    }
    if (sidelineAfter != null && sidelineAfter.toMillis() <= 0) {
      throw new IllegalArgumentException("sidelineAfterMs must be > 0, got " + sidelineAfter.toMillis());
    }
    if (topicWeights == null) {
      topicWeights = Map.of();
    } else {
      topicWeights.forEach((topic, w) -> {
        String badName = dev.ordo.api.Names.problem("topic", topic);
        if (badName != null) {
          throw new IllegalArgumentException("topicWeights: " + badName);
        }
        if (w == null || !(w > 0) || Double.isInfinite(w)) {
          throw new IllegalArgumentException("topicWeights." + topic + " must be a finite number > 0, got " + w);
        }
      });
      topicWeights = Map.copyOf(topicWeights);
    }
    if (orderedTopics != null) {
      orderedTopics.forEach((topic, on) -> {
        if (topic == null || on == null) {
          throw new IllegalArgumentException("orderedTopics." + topic + " must be true or false, got " + on);
        }
      });
    }
    orderedTopics = orderedTopics == null ? Map.of() : Map.copyOf(orderedTopics);
    String badShards = dev.ordo.api.Shards.problem("shards", shards);
    if (badShards != null) {
      throw new IllegalArgumentException(badShards);
    }
  }

  /** A policy without shuffle sharding (one partition per group key). */
  public NamespacePolicy(Defaults defaults, Rate admissionRate, Long maxBacklog, Rate dispatchRate,
      Duration sidelineAfter, Groups groups, Duration dedupWindow, Map<String, Double> topicWeights,
      Boolean ordered, Map<String, Boolean> orderedTopics) {
    this(defaults, admissionRate, maxBacklog, dispatchRate, sidelineAfter, groups, dedupWindow, topicWeights, ordered,
        orderedTopics, null);
  }

  /**
   * This policy with {@code shards} (null: none, one partition per group key): each group key's items spread
   * over its own combination of that many partitions (docs/queue.md, "Shuffle sharding").
   */
  public NamespacePolicy withShards(Integer shards) {
    return new NamespacePolicy(defaults, admissionRate, maxBacklog, dispatchRate, sidelineAfter, groups, dedupWindow,
        topicWeights, ordered, orderedTopics, shards);
  }

  /** A policy without topic weights that orders no group (decisions D60: off unless said). */
  public NamespacePolicy(Defaults defaults, Rate admissionRate, Long maxBacklog, Rate dispatchRate,
      Duration sidelineAfter, Groups groups, Duration dedupWindow) {
    this(defaults, admissionRate, maxBacklog, dispatchRate, sidelineAfter, groups, dedupWindow, null, null, null);
  }

  /** This policy with {@code weights} as its topic weights (null or empty: none, every topic weight 1). */
  public NamespacePolicy withTopicWeights(Map<String, Double> weights) {
    return new NamespacePolicy(defaults, admissionRate, maxBacklog, dispatchRate, sidelineAfter, groups, dedupWindow,
        weights, ordered, orderedTopics, shards);
  }

  /**
   * This policy with ordered groups set (null: off) and per-topic overrides (null: none): each group
   * key's items of an ordered topic are leased one at a time in enqueue order (docs/queue.md, "Ordered groups").
   */
  public NamespacePolicy withOrdered(Boolean ordered, Map<String, Boolean> orderedTopics) {
    return new NamespacePolicy(defaults, admissionRate, maxBacklog, dispatchRate, sidelineAfter, groups, dedupWindow,
        topicWeights, ordered, orderedTopics, shards);
  }

  /**
   * This policy with per-group rates (docs/queue.md, "Group rates"): {@code rate} for every group key (null:
   * none), {@code overrides} per group key in its place (null: none); the other group settings kept.
   */
  public NamespacePolicy withGroupRate(Rate rate, Map<String, Rate> overrides) {
    Groups g = groups == null ? new Groups(null, null, null) : groups;
    Groups rated = g.withRate(rate, overrides);
    boolean empty = rated.concurrency() == null && rated.concurrencyOverrides().isEmpty() && rated.weights().isEmpty()
        && rated.rate() == null && rated.rateOverrides().isEmpty();
    return new NamespacePolicy(defaults, admissionRate, maxBacklog, dispatchRate, sidelineAfter, empty ? null : rated,
        dedupWindow, topicWeights, ordered, orderedTopics, shards);
  }

  /**
   * True when {@code topic}'s grouped items are ordered under this policy: its override, else true for a
   * topic named {@code *.fifo} (an SQS FIFO queue's), else {@code ordered}.
   */
  public boolean orders(String topic) {
    Boolean own = orderedTopics.get(topic);
    return own != null ? own : topic.endsWith(".fifo") || Boolean.TRUE.equals(ordered);
  }

  /** A policy without a deduplication window of its own (5 minutes). */
  public NamespacePolicy(Defaults defaults, Rate admissionRate, Long maxBacklog, Rate dispatchRate,
      Duration sidelineAfter, Groups groups) {
    this(defaults, admissionRate, maxBacklog, dispatchRate, sidelineAfter, groups, null);
  }

  /** This policy with {@code window} as its deduplication window (null: the default, 5 minutes). */
  public NamespacePolicy withDedupWindow(Duration window) {
    return new NamespacePolicy(defaults, admissionRate, maxBacklog, dispatchRate, sidelineAfter, groups, window,
        topicWeights, ordered, orderedTopics, shards);
  }

  /** A policy of defaults only. */
  public NamespacePolicy(Defaults defaults) {
    this(defaults, null, null);
  }

  /** A policy of defaults and admission limits. */
  public NamespacePolicy(Defaults defaults, Rate admissionRate, Long maxBacklog) {
    this(defaults, admissionRate, maxBacklog, null, null, null);
  }

  /** A policy without group settings. */
  public NamespacePolicy(Defaults defaults, Rate admissionRate, Long maxBacklog, Rate dispatchRate,
      Duration sidelineAfter) {
    this(defaults, admissionRate, maxBacklog, dispatchRate, sidelineAfter, null);
  }

  /**
   * Fair queueing among a namespace's group keys (docs/queue.md, "Fair queueing").
   *
   * @param concurrency at most this many items of one group leased at once ({@code >= 1}); null: no limit
   * @param concurrencyOverrides per group key, its own limit in place of {@code concurrency} ({@code >= 1})
   * @param weights per group key, its weight ({@code > 0}, default 1): a group of weight 3 is served
   *     three times as often as one of weight 1 while both have items ready
   * @param rate items of one group key leased a second, at most {@code burst} at once (docs/queue.md, "Group
   *     rates"; decisions D61): a group over it waits, the others are not slowed; null: no rate. Items without
   *     a group key are not rate-limited. Under {@code shards}, each of the group's shards holds its part of the
   *     rate and the burst, which sum to them
   * @param rateOverrides per group key, its own rate in place of {@code rate}; never null (empty: none)
   */
  public record Groups(Integer concurrency, Map<String, Integer> concurrencyOverrides, Map<String, Double> weights,
      Rate rate, Map<String, Rate> rateOverrides) {
    /** Groups without rates. */
    public Groups(Integer concurrency, Map<String, Integer> concurrencyOverrides, Map<String, Double> weights) {
      this(concurrency, concurrencyOverrides, weights, null, null);
    }

    /** These group settings with {@code rate} for every group (null: none) and {@code overrides} per group (null: none). */
    public Groups withRate(Rate rate, Map<String, Rate> overrides) {
      return new Groups(concurrency, concurrencyOverrides, weights, rate, overrides);
    }

    /** The rate of {@code group}: its override, else {@link #rate}; null: none. */
    public Rate rateOf(String group) {
      Rate own = rateOverrides.get(group);
      return own != null ? own : rate;
    }

    public Groups {
      if (rateOverrides != null) {
        rateOverrides.forEach((group, r) -> {
          if (group == null || r == null) {
            throw new IllegalArgumentException("groupRateOverrides." + group + " must be a rate {perSecond, burst}, got "
                + r);
          }
        });
      }
      rateOverrides = rateOverrides == null ? Map.of() : Map.copyOf(rateOverrides);
      if (concurrency != null && concurrency < 1) {
        throw new IllegalArgumentException("groupConcurrency must be at least 1, got " + concurrency);
      }
      concurrencyOverrides = concurrencyOverrides == null ? Map.of() : Map.copyOf(concurrencyOverrides);
      weights = weights == null ? Map.of() : Map.copyOf(weights);
      concurrencyOverrides.forEach((group, k) -> {
        if (k == null || k < 1) {
          throw new IllegalArgumentException("groupConcurrencyOverrides." + group + " must be at least 1, got " + k);
        }
      });
      weights.forEach((group, w) -> {
        if (w == null || !(w > 0) || Double.isInfinite(w)) {
          throw new IllegalArgumentException("groupWeights." + group + " must be a number > 0, got " + w);
        }
      });
    }
  }

  /**
   * @param leaseMs lease of an item that sets none ({@code > 0})
   * @param ttlMs time to live of an item that sets none ({@code > 0})
   * @param maxAttempts deliveries before an item is dead-lettered ({@code >= 1})
   * @param atMostOnce true: items that do not say are at-most-once
   * @param maxPayloadBytes largest payload of the namespace ({@code >= 0}; the server's limit stays the limit above it)
   * @throws IllegalArgumentException naming the field that is out of range
   */
  public record Defaults(Long leaseMs, Long ttlMs, Integer maxAttempts, Boolean atMostOnce, Integer maxPayloadBytes) {
    public Defaults {
      if (leaseMs != null && leaseMs <= 0) {
        throw new IllegalArgumentException("defaults.leaseMs must be > 0, got " + leaseMs);
      }
      if (ttlMs != null && ttlMs <= 0) {
        throw new IllegalArgumentException("defaults.ttlMs must be > 0, got " + ttlMs);
      }
      if (maxAttempts != null && maxAttempts < 1) {
        throw new IllegalArgumentException("defaults.maxAttempts must be >= 1, got " + maxAttempts);
      }
      if (maxPayloadBytes != null && maxPayloadBytes < 0) {
        throw new IllegalArgumentException("defaults.maxPayloadBytes must be >= 0, got " + maxPayloadBytes);
      }
    }
  }

  /**
   * A rate as a token bucket: {@code perSecond} a second on average, at most {@code burst} at once.
   *
   * @param perSecond items a second ({@code > 0}, finite)
   * @param burst items at once ({@code >= 1})
   */
  public record Rate(double perSecond, long burst) {
    public Rate {
      if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
        throw new IllegalArgumentException("perSecond must be a number > 0, got " + perSecond);
      }
      if (burst < 1) {
        throw new IllegalArgumentException("burst must be at least 1, got " + burst);
      }
    }

    /** {@code perSecond} with a burst of one second's worth (at least 1). */
    public static Rate perSecond(double perSecond) {
      return new Rate(perSecond, Math.max(1, (long) Math.ceil(perSecond)));
    }

    dev.ordo.schema.Rate toRecord() {
      return new dev.ordo.schema.Rate(perSecond, burst);
    }

    static Rate fromRecord(dev.ordo.schema.Rate r) {
      return r == null ? null : new Rate(r.getPerSecond(), r.getBurst());
    }
  }

  /** The record Ordo stores on {@code <cluster>.namespaces}. */
  dev.ordo.schema.NamespacePolicy toRecord(String namespace, long updatedAt) {
    dev.ordo.schema.PolicyDefaults d = defaults == null ? null : dev.ordo.schema.PolicyDefaults.newBuilder()
        .setLeaseMs(defaults.leaseMs()).setTtlMs(defaults.ttlMs()).setMaxAttempts(defaults.maxAttempts())
        .setAtMostOnce(defaults.atMostOnce()).setMaxPayloadBytes(defaults.maxPayloadBytes()).build();
    return dev.ordo.schema.NamespacePolicy.newBuilder().setNamespace(namespace).setDefaults(d)
        .setAdmissionRate(admissionRate == null ? null : admissionRate.toRecord())
        .setMaxBacklog(maxBacklog)
        .setDispatchRate(dispatchRate == null ? null : dispatchRate.toRecord())
        .setSidelineAfterMs(sidelineAfter == null ? null : sidelineAfter.toMillis())
        .setGroupConcurrency(groups == null ? null : groups.concurrency())
        .setGroupConcurrencyOverrides(groups == null ? Map.of() : new java.util.HashMap<>(groups.concurrencyOverrides()))
        .setGroupWeights(groups == null ? Map.of() : new java.util.HashMap<>(groups.weights()))
        .setGroupRate(groups == null || groups.rate() == null ? null : groups.rate().toRecord())
        .setGroupRateOverrides(groups == null || groups.rateOverrides().isEmpty() ? null : rateRecords(groups.rateOverrides()))
        .setDedupWindowMs(dedupWindow == null ? null : dedupWindow.toMillis())
        .setTopicWeights(new java.util.HashMap<>(topicWeights))
        .setOrdered(ordered)
        .setOrderedTopics(new java.util.HashMap<>(orderedTopics))
        .setShards(shards)
        .setUpdatedAt(updatedAt)
        .build();
  }

  static NamespacePolicy fromRecord(dev.ordo.schema.NamespacePolicy r) {
    dev.ordo.schema.PolicyDefaults d = r.getDefaults();
    return new NamespacePolicy(d == null ? null
        : new Defaults(d.getLeaseMs(), d.getTtlMs(), d.getMaxAttempts(), d.getAtMostOnce(), d.getMaxPayloadBytes()),
        Rate.fromRecord(r.getAdmissionRate()), r.getMaxBacklog(), Rate.fromRecord(r.getDispatchRate()),
        r.getSidelineAfterMs() == null ? null : Duration.ofMillis(r.getSidelineAfterMs()),
        r.getGroupConcurrency() == null && r.getGroupConcurrencyOverrides().isEmpty() && r.getGroupWeights().isEmpty()
            && r.getGroupRate() == null && (r.getGroupRateOverrides() == null || r.getGroupRateOverrides().isEmpty())
            ? null : new Groups(r.getGroupConcurrency(), r.getGroupConcurrencyOverrides(), r.getGroupWeights(),
                validRate(r.getGroupRate()), validRates(r.getGroupRateOverrides())),
        r.getDedupWindowMs() == null ? null : Duration.ofMillis(r.getDedupWindowMs()),
        r.getTopicWeights() == null ? Map.of() : validWeights(r.getTopicWeights()),
        r.getOrdered(), r.getOrderedTopics(),
        r.getShards() == null || dev.ordo.api.Shards.problem("shards", r.getShards()) != null ? null : r.getShards());
  }

  private static Map<String, dev.ordo.schema.Rate> rateRecords(Map<String, Rate> rates) {
    Map<String, dev.ordo.schema.Rate> out = new java.util.HashMap<>();
    rates.forEach((group, r) -> out.put(group, r.toRecord()));
    return out;
  }

  /** A stored rate, or null when a policy could not hold it (written by hand, say). */
  private static Rate validRate(dev.ordo.schema.Rate r) {
    return r == null || !(r.getPerSecond() > 0) || Double.isInfinite(r.getPerSecond()) || r.getBurst() < 1 ? null
        : Rate.fromRecord(r);
  }

  /** The group rates of a stored record, those a policy could not hold left out. */
  private static Map<String, Rate> validRates(Map<String, dev.ordo.schema.Rate> stored) {
    Map<String, Rate> out = new java.util.HashMap<>();
    if (stored != null) {
      stored.forEach((group, r) -> {
        Rate valid = validRate(r);
        if (group != null && valid != null) {
          out.put(group, valid);
        }
      });
    }
    return out;
  }

  /** The weights of a stored record, those a policy could not hold (written by hand, say) left out. */
  private static Map<String, Double> validWeights(Map<String, Double> stored) {
    Map<String, Double> out = new java.util.HashMap<>();
    stored.forEach((topic, w) -> {
      if (w != null && w > 0 && !w.isInfinite() && dev.ordo.api.Names.problem("topic", topic) == null) {
        out.put(topic, w);
      }
    });
    return out;
  }
}
