package dev.ordo.faults;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemId;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.LeaseConsumer;
import dev.ordo.client.LeaseConsumerConfig;
import dev.ordo.client.LeasedItem;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.QueueProducerConfig;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Failover with a backlog (issue 17): two {@code ordo server} processes share a cluster's
 * partitions; {@code items} items are enqueued and taken in; lease consumers start working through
 * them; one server is killed with SIGKILL. Measured: the time from the kill until each of the dead
 * server's partitions hands out again an item leased by the survivor (a lease granted after the kill,
 * told by its expiry: the dead server's last deliveries, still in the consumers' buffers, don't
 * count). With {@code drainAll}, the consumers then work the whole backlog off, and the run reports
 * what was handled against what was enqueued.
 */
public final class FailoverRun {
  private static final String NAMESPACE = "failover";
  private static final Duration LEASE = Duration.ofSeconds(Long.getLong("ordo.bench.failover.lease.s", 10));
  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

  /**
   * @param items the standing backlog
   * @param partitions partitions of the cluster's topics
   * @param standbys {@code streams.num.standby.replicas} of both servers
   * @param payloadBytes payload of each item (at least 8)
   * @param drainAll whether to work every item off after the takeover
   * @param serverJvmOptions JVM options of each server, e.g. {@code -Xmx1g}
   * @param serverSettings more settings of the server (its --config), e.g. for an experiment
   */
  public record Options(int items, int partitions, int standbys, int payloadBytes, boolean drainAll,
      List<String> serverJvmOptions, Map<String, String> serverSettings) {
    public Options {
      if (items < 1 || partitions < 2 || standbys < 0 || payloadBytes < 8) {
        throw new IllegalArgumentException("failover needs items >= 1, partitions >= 2, standbys >= 0, payload >= 8");
      }
      serverJvmOptions = List.copyOf(serverJvmOptions);
      serverSettings = Map.copyOf(serverSettings);
    }
  }

  /**
   * @param victimPartitions the partitions the killed server ran
   * @param handledAtKill items handled when the server was killed
   * @param takeover the longest, over the victim's partitions, of kill → first item leased there again
   * @param perPartition each victim partition's time until its first item leased again
   * @param handled distinct items handled by the end
   * @param duplicates items handled more than once (at-least-once redeliveries)
   * @param missing with {@code drainAll}: items enqueued and never handled (must be 0); -1 without
   * @param unknown items handled that were never enqueued (must be 0)
   */
  public record Result(int standbys, int items, Set<Integer> victimPartitions, long handledAtKill, Duration takeover,
      Map<Integer, Duration> perPartition, long handled, long duplicates, long missing, long unknown,
      Duration ingest, long tableRebuilds, long rebuiltItems, long lostItems) {
    public String line() {
      return String.format("standbys %d: %,d items, killed a server with partitions %s after %,d handled; "
              + "its partitions dispatched again after %.2f s (each: %s); ingest %.1f s; handled %,d distinct, "
              + "%,d twice, %s, %,d unknown; the survivor rebuilt %d item tables (%,d items; %,d lost)",
          standbys, items, victimPartitions, handledAtKill, takeover.toMillis() / 1e3, seconds(perPartition),
          ingest.toMillis() / 1e3, handled, duplicates,
          missing < 0 ? "the rest not drained" : String.format("%,d missing", missing), unknown, tableRebuilds, rebuiltItems,
          lostItems);
    }

    private static String seconds(Map<Integer, Duration> m) {
      Map<Integer, String> s = new TreeMap<>();
      m.forEach((p, d) -> s.put(p, String.format("%.2f s", d.toMillis() / 1e3)));
      return s.toString();
    }
  }

  private FailoverRun() {}

  public static Result run(String bootstrap, String cluster, Options o, Path dir, PrintStream log) {
    ClusterTopics topics = new ClusterTopics(cluster);
    Map<String, String> settings = new HashMap<>(o.serverSettings());
    settings.put("ordo.cluster", cluster);
    settings.put("ordo.server.partitions", Integer.toString(o.partitions()));
    settings.put("ordo.server.http.port", "0");
    settings.put("streams.num.standby.replicas", Integer.toString(o.standbys()));
    Tracker tracker = new Tracker(o.partitions());
    settings.put("ordo.server.state.dir", dir.resolve("survivor").toString());
    try (ServerProcess survivor = ServerProcess.start("survivor", bootstrap, o.serverJvmOptions(), settings, dir,
        START_TIMEOUT)) {
      settings.put("ordo.server.state.dir", dir.resolve("victim").toString());
      try (ServerProcess victim = ServerProcess.start("victim", bootstrap, o.serverJvmOptions(), settings, dir,
          START_TIMEOUT)) {
        awaitCondition("both servers run partitions" + (o.standbys() > 0 ? " and every partition has a standby" : ""),
            () -> {
              Set<Integer> a = survivor.activePartitions();
              Set<Integer> b = victim.activePartitions();
              Set<Integer> all = new TreeSet<>(a);
              all.addAll(b);
              return !a.isEmpty() && !b.isEmpty() && all.size() == o.partitions() && a.size() + b.size() == o.partitions()
                  && (o.standbys() == 0 || survivor.partitionsWithStandby().size() == o.partitions());
            }, START_TIMEOUT, survivor, victim);
        log.printf("failover: servers up (survivor %s, victim %s); enqueuing %,d items%n",
            survivor.activePartitions(), victim.activePartitions(), o.items());

        long t0 = System.nanoTime();
        enqueue(bootstrap, cluster, o, tracker);
        awaitIngested(bootstrap, topics, survivor, victim);
        Duration ingest = Duration.ofNanos(System.nanoTime() - t0);
        log.printf("failover: %,d items taken in after %.1f s%n", o.items(), ingest.toMillis() / 1e3);

        List<LeaseConsumer> consumers = new ArrayList<>();
        try {
          for (int i = 0; i < 2; i++) {
            LeaseConsumer c = new LeaseConsumer(consumerConfig(bootstrap, cluster, NAMESPACE, 2_000));
            consumers.add(c);
            c.start(tracker::handle);
          }
          long killAfter = Math.max(1, Math.min(o.items() / 10, 50_000));
          awaitCondition(killAfter + " items handled", () -> tracker.handled.get() >= killAfter,
              Duration.ofMinutes(5), survivor, victim);
          Set<Integer> victimPartitions = victim.activePartitions();
          if (victimPartitions.isEmpty()) {
            throw new IllegalStateException("the victim runs no partition at the kill");
          }
          long handledAtKill = tracker.handled.get();
          long killWallMillis = System.currentTimeMillis();
          tracker.killedAt(killWallMillis - 1);
          long killNanos = System.nanoTime();
          victim.kill();
          log.printf("failover: killed the victim (partitions %s) after %,d items handled%n", victimPartitions,
              handledAtKill);
          awaitCondition("every partition of the victim dispatching again", () -> victimPartitions.stream()
              .allMatch(p -> tracker.firstAfterKill.get(p) != 0), Duration.ofMinutes(10), survivor);
          Map<Integer, Duration> perPartition = new TreeMap<>();
          for (int p : victimPartitions) {
            perPartition.put(p, Duration.ofNanos(tracker.firstAfterKill.get(p) - killNanos));
          }
          Duration takeover = perPartition.values().stream().max(Duration::compareTo).orElseThrow();
          log.printf("failover: killed at %s; the survivor since then:%n", java.time.LocalTime.ofInstant(
              java.time.Instant.ofEpochMilli(killWallMillis), java.time.ZoneId.systemDefault()));
          survivorLines(survivor, killWallMillis).forEach(l -> log.println("  " + l));
          for (int p : victimPartitions) {
            log.printf("failover: partition %d: first lease after the kill granted %.2f s after it, handled %.2f s after it%n",
                p, (tracker.firstLeasedAt.get(p) - killWallMillis) / 1e3, (tracker.firstHandledAt.get(p) - killWallMillis) / 1e3);
          }
          if (o.drainAll()) {
            awaitCondition("every item handled", () -> tracker.missing() == 0, Duration.ofMinutes(10), survivor);
          }
          String metrics = survivor.get("/metrics");
          return new Result(o.standbys(), o.items(), victimPartitions, handledAtKill, takeover, perPartition,
              tracker.distinct(), tracker.duplicates.get(), o.drainAll() ? tracker.missing() : -1, tracker.unknown.get(),
              ingest, queueEvents(metrics, "item.table.rebuilds"), queueEvents(metrics, "item.table.rebuilt.items"),
              queueEvents(metrics, "items.lost"));
        } finally {
          consumers.forEach(LeaseConsumer::close);
        }
      }
    }
  }

  /** A queue event's count in a Prometheus scrape ({@code ordo_queue_events_total}, summed over its series); -1 when absent. */
  static long queueEvents(String scrape, String event) {
    String series = "ordo_queue_events_total{";
    String label = "event=\"" + event + "\"";
    long sum = -1;
    for (String line : scrape.split("\n")) {
      if (line.startsWith(series) && line.contains(label)) {
        sum = Math.max(sum, 0) + (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** The survivor's lines about its partitions' index after the kill (the rebuild of the ones it took over). */
  private static List<String> survivorLines(ServerProcess survivor, long sinceWallMillis) {
    String since = java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss.SSS").format(java.time.LocalTime.ofInstant(
        java.time.Instant.ofEpochMilli(sinceWallMillis), java.time.ZoneId.systemDefault()));
    try (var lines = java.nio.file.Files.lines(survivor.logFile())) {
      return lines.filter(l -> isPartitionLine(l) && l.length() > 12 && l.substring(0, 12).compareTo(since) >= 0)
          .limit(40).toList();
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      return List.of("(no log: " + e + ")");
    }
  }

  /**
   * A line of the queue's processor or one of its parts about a partition (they log under their own class
   * names, {@code IndexRebuild}, {@code StoreOpening}..., each message starting "Partition N:"), or any
   * warning or error: a stream thread fenced or its tasks closed dirty during the takeover shows why.
   */
  static boolean isPartitionLine(String line) {
    return line.contains(" - Partition ") || line.contains(" QueueProcessor - ") || line.contains(" WARN ")
        || line.contains(" ERROR ");
  }

  private static void enqueue(String bootstrap, String cluster, Options o, Tracker tracker) {
    Map<String, Object> config = Map.of("bootstrap.servers", bootstrap, QueueProducerConfig.CLUSTER_CONFIG, cluster);
    try (QueueProducer producer = new QueueProducer(config)) {
      List<CompletableFuture<ItemId>> window = new ArrayList<>();
      for (int i = 0; i < o.items(); i++) {
        byte[] payload = ByteBuffer.allocate(o.payloadBytes()).putLong(i).array();
        window.add(producer.enqueue(EnqueueRequest.builder(NAMESPACE, "t" + (i % 4), payload)
            .priority(i % 10).lease(LEASE).maxAttempts(1_000).build()).thenApply(id -> {
              tracker.enqueued(id);
              return id;
            }));
        if (window.size() == 10_000) {
          CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).join();
          window.clear();
        }
      }
      CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).join();
    }
  }

  /** Waits until the queue's tasks committed every item record (their group's lag on items is 0). */
  static void awaitIngested(String bootstrap, ClusterTopics topics, ServerProcess... servers) {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      awaitCondition("the queue taking every item in", () -> {
        try {
          Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(topics.applicationId())
              .partitionsToOffsetAndMetadata().get();
          Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
          committed.keySet().stream().filter(tp -> tp.topic().equals(topics.items()))
              .forEach(tp -> ask.put(tp, OffsetSpec.latest()));
          if (ask.isEmpty()) {
            return false;
          }
          var ends = admin.listOffsets(ask).all().get();
          return ends.entrySet().stream().allMatch(e -> committed.get(e.getKey()).offset() >= e.getValue().offset());
        } catch (Exception e) {
          return false;
        }
      }, Duration.ofMinutes(30), servers);
    }
  }

  /** A lease consumer of every topic of {@code namespace}, 4 workers. */
  static Map<String, Object> consumerConfig(String bootstrap, String cluster, String namespace, int maxInFlight) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", bootstrap);
    c.put(QueueClientConfig.CLUSTER_CONFIG, cluster);
    c.put(LeaseConsumerConfig.GROUP_ID_CONFIG, cluster + "-workers");
    c.put(LeaseConsumerConfig.NAMESPACE_CONFIG, namespace);
    c.put(LeaseConsumerConfig.TOPICS_CONFIG, "*");
    c.put(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, maxInFlight);
    c.put(LeaseConsumerConfig.WORKERS_CONFIG, 4);
    c.put("consumer." + ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
    c.put("consumer." + ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
    return c;
  }

  /**
   * Polls {@code condition} every 100 ms until it holds.
   *
   * @throws IllegalStateException after {@code timeout}, or when a server it depends on died
   */
  static void awaitCondition(String what, BooleanSupplier condition, Duration timeout, ServerProcess... servers) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      for (ServerProcess s : servers) {
        if (!s.isAlive()) {
          throw new IllegalStateException("ordo server " + s.name() + " died while waiting for " + what
              + "; its last lines:\n" + s.lastLines());
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not done after " + timeout.toSeconds() + " s: " + what);
      }
      if (!pause(100_000_000L)) {
        throw new IllegalStateException("interrupted while waiting for " + what);
      }
    }
  }

  /** Sleeps {@code nanos} (nothing when not positive); false when interrupted. */
  static boolean pause(long nanos) {
    if (nanos <= 0) {
      return true;
    }
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** What was enqueued and handled, per partition by offset. */
  static final class Tracker {
    private final BitSet[] enqueued;
    private final BitSet[] handledIds;
    final AtomicLong handled = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();
    final AtomicLong unknown = new AtomicLong();
    final AtomicLongArray firstAfterKill;
    /** Per partition, the first lease after the kill: when the queue granted it, when it was handled (wall ms). */
    final AtomicLongArray firstLeasedAt;
    final AtomicLongArray firstHandledAt;
    private volatile long killedAtMillis = Long.MAX_VALUE;

    Tracker(int partitions) {
      enqueued = new BitSet[partitions];
      handledIds = new BitSet[partitions];
      for (int p = 0; p < partitions; p++) {
        enqueued[p] = new BitSet();
        handledIds[p] = new BitSet();
      }
      firstAfterKill = new AtomicLongArray(partitions);
      firstLeasedAt = new AtomicLongArray(partitions);
      firstHandledAt = new AtomicLongArray(partitions);
    }

    void enqueued(ItemId id) {
      synchronized (enqueued[id.partition()]) {
        enqueued[id.partition()].set(Math.toIntExact(id.offset()));
      }
    }

    void killedAt(long wallMillis) {
      killedAtMillis = wallMillis;
    }

    void handle(LeasedItem item) {
      int p = item.id().partition();
      int offset = Math.toIntExact(item.id().offset());
      handled.incrementAndGet();
      boolean known;
      synchronized (enqueued[p]) {
        known = enqueued[p].get(offset);
      }
      synchronized (handledIds[p]) {
        if (!known) {
          unknown.incrementAndGet();
        } else if (handledIds[p].get(offset)) {
          duplicates.incrementAndGet();
        } else {
          handledIds[p].set(offset);
        }
      }
      // Leased after the kill (the lease's start is its expiry less the item's lease): by the survivor.
      long leasedAt = item.delivered().leaseExpiresAt().toEpochMilli() - LEASE.toMillis();
      if (leasedAt >= killedAtMillis && firstAfterKill.compareAndSet(p, 0, System.nanoTime())) {
        firstLeasedAt.set(p, leasedAt);
        firstHandledAt.set(p, System.currentTimeMillis());
      }
    }

    long distinct() {
      long n = 0;
      for (BitSet b : handledIds) {
        synchronized (b) {
          n += b.cardinality();
        }
      }
      return n;
    }

    long missing() {
      long n = 0;
      for (int p = 0; p < enqueued.length; p++) {
        BitSet left;
        synchronized (enqueued[p]) {
          left = (BitSet) enqueued[p].clone();
        }
        synchronized (handledIds[p]) {
          left.andNot(handledIds[p]);
        }
        n += left.cardinality();
      }
      return n;
    }
  }
}
