package dev.ordo.delay;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Durations;
import dev.ordo.delay.internal.ClientFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delay tier service of one Ordo cluster: one {@link DelayForwarder} per tier, each on its own
 * thread, restarted (after {@code ordo.delay.forwarder.error.backoff.ms}) if it ever fails. Run one in
 * every {@code ordo server}; the forwarders of all instances share each tier's partitions.
 *
 * <pre>{@code
 * DelayTiers tiers = new DelayTiers(Map.of(
 *     "bootstrap.servers", "localhost:9092",
 *     DelayTiersConfig.CLUSTER_CONFIG, "ordo",
 *     DelayTiersConfig.TIERS_CONFIG, "30s,1m,5m,30m",
 *     DelayTiersConfig.INSTANCE_ID_CONFIG, hostName));
 * tiers.start();
 * ...
 * tiers.close();
 * }</pre>
 *
 * The topics must exist: {@link #newTopics} gives their specs ({@code <cluster>.delay.<d>} with
 * LogAppendTime timestamps), and dead letters go to {@code <cluster>.dlq}.
 */
public final class DelayTiers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DelayTiers.class);
  /** Tier topics keep records at least this long (and at least twice their delay), so forwarders may be down that long. */
  public static final Duration MIN_RETENTION = Duration.ofDays(7);

  private final DelayTiersConfig config;
  private final Time time;
  private final ClientFactory clients;
  private final List<Supervisor> supervisors = new ArrayList<>();
  private boolean started;
  private volatile boolean closing;

  public DelayTiers(Map<String, ?> config) {
    this(new DelayTiersConfig(config));
  }

  public DelayTiers(DelayTiersConfig config) {
    this(config, Time.SYSTEM, ClientFactory.KAFKA);
  }

  DelayTiers(DelayTiersConfig config, Time time, ClientFactory clients) {
    this.config = config;
    this.time = time;
    this.clients = clients;
  }

  public DelayTiersConfig config() {
    return config;
  }

  /** Starts one forwarder thread per tier. */
  public synchronized void start() {
    if (started) {
      throw new IllegalStateException("DelayTiers already started");
    }
    started = true;
    for (Duration tier : config.tiers()) {
      Supervisor s = new Supervisor(tier);
      supervisors.add(s);
      s.thread.start();
    }
    log.info("delay tiers of cluster {} started: {}", config.topics().cluster(),
        config.tiers().stream().map(Durations::format).toList());
  }

  /** True while started, not closed, and every forwarder thread alive. */
  public synchronized boolean isRunning() {
    return started && !closing && supervisors.stream().allMatch(s -> s.thread.isAlive());
  }

  /** Told, per tier, how late (ms past due; negative: early) each record goes to its target. */
  private volatile java.util.function.ObjLongConsumer<Duration> lateness = (tier, ms) -> { };

  /** Sets who is told how late each record goes to its target, and from which tier (metrics). */
  public void observeLateness(java.util.function.ObjLongConsumer<Duration> observer) {
    this.lateness = observer;
  }

  /** Records each tier's forwarder holds aside in memory until due. */
  public synchronized Map<Duration, Integer> held() {
    Map<Duration, Integer> held = new LinkedHashMap<>();
    for (Supervisor s : supervisors) {
      DelayForwarder f = s.current;
      held.put(s.tier, f == null ? 0 : f.held());
    }
    return held;
  }

  /** The counts of the current forwarder of each tier. */
  public synchronized Map<Duration, ForwarderStats> stats() {
    Map<Duration, ForwarderStats> stats = new LinkedHashMap<>();
    for (Supervisor s : supervisors) {
      DelayForwarder f = s.current;
      stats.put(s.tier, f == null ? new ForwarderStats(0, 0, 0, 0, 0, 0) : f.stats());
    }
    return stats;
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }

  /** Stops every forwarder (aborting open transactions) and waits up to {@code timeout} for their threads. */
  public synchronized void close(Duration timeout) {
    closing = true;
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Supervisor s : supervisors) {
      s.stop();
    }
    for (Supervisor s : supervisors) {
      try {
        s.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (s.thread.isAlive()) {
        log.warn("forwarder thread of {} did not stop within {}", s.tier, timeout);
      }
    }
  }

  /**
   * The tier topics of {@code cluster}: {@code <cluster>.delay.<d>} for each tier, with
   * {@code message.timestamp.type=LogAppendTime} (a record's tier delay runs from when the broker
   * appended it) and {@code cleanup.policy=delete} with {@code retention.ms} = max({@link #MIN_RETENTION},
   * 2 × the delay), as {@code ordo server} creates them. Partitions bound how many forwarders a tier can use.
   */
  public static List<NewTopic> newTopics(String cluster, List<Duration> tiers, int partitions, short replicationFactor) {
    ClusterTopics topics = new ClusterTopics(cluster);
    List<NewTopic> specs = new ArrayList<>();
    for (Duration tier : tiers) {
      specs.add(new NewTopic(topics.delayTier(tier), partitions, replicationFactor).configs(Map.of(
          TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime",
          TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
          TopicConfig.RETENTION_MS_CONFIG, String.valueOf(Math.max(MIN_RETENTION.toMillis(), 2 * tier.toMillis())))));
    }
    return specs;
  }

  /** {@link #newTopics(String, List, int, short)} for the cluster and tiers of {@code config}. */
  public static List<NewTopic> newTopics(DelayTiersConfig config, int partitions, short replicationFactor) {
    return newTopics(config.topics().cluster(), config.tiers(), partitions, replicationFactor);
  }

  /** Runs the forwarders of one tier one after another: a forwarder that fails is replaced after a backoff. */
  private final class Supervisor implements Runnable {
    final Duration tier;
    final Thread thread;
    final CountDownLatch stop = new CountDownLatch(1);
    volatile DelayForwarder current;

    Supervisor(Duration tier) {
      this.tier = tier;
      this.thread = new Thread(this, "ordo-delay-" + Durations.format(tier));
    }

    @Override
    public void run() {
      while (!closing) {
        DelayForwarder forwarder = new DelayForwarder(config, tier, time, clients);
        forwarder.observeLateness(ms -> lateness.accept(tier, ms));
        current = forwarder;
        if (closing) {
          return;
        }
        try {
          forwarder.run();
          return;
        } catch (RuntimeException e) {
          log.error("forwarder of {} failed; starting a new one in {} ms", forwarder.topic(), config.errorBackoffMs(), e);
        }
        try {
          if (stop.await(config.errorBackoffMs(), TimeUnit.MILLISECONDS)) {
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    void stop() {
      stop.countDown();
      DelayForwarder f = current;
      if (f != null) {
        f.close(Duration.ZERO);
      }
    }
  }
}
