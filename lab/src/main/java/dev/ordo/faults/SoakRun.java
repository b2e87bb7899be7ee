package dev.ordo.faults;

import dev.ordo.api.ClusterTopics;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.LeaseConsumer;
import dev.ordo.client.LeaseConsumerConfig;
import dev.ordo.client.LeasedItem;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueItem;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.QueueProducerConfig;
import dev.ordo.client.RetryLater;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.serde.OrdoSerdes;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The soak (issue 17): mixed load over two {@code ordo server} processes for {@code duration}, one
 * of them restarted every {@code restartEvery} (in turn, alternately stopped with SIGTERM and killed
 * with SIGKILL). Each server's heap after a full GC and its resident set are sampled every
 * {@code sampleEvery}. At the end every item must be accounted for as its settings say.
 *
 * <p>The load, by sequence number modulo 20: six tenths plain items (priorities 0-9, acked); a tenth
 * delayed by up to {@code maxDelay}, 40 s in the bench mode (through the delay tiers {@code 1s,5s,20s};
 * handled no earlier than due); a
 * tenth nacked with a 2 s delay on their first attempt, acked on the second; a twentieth poison
 * (every attempt fails; dead-lettered after 2 attempts, MAX_ATTEMPTS); a twentieth with a 3 s TTL in a
 * namespace no one works (dead-lettered, TTL_EXPIRED); a tenth whose first lease a raw client lets
 * run out (2 s), acked on a later attempt.
 */
public final class SoakRun {
  private static final String WORK = "soak";
  private static final String UNWORKED = "soak-ttl";
  private static final String EXPIRING = "soak-expire";
  private static final String TIERS = "1s,5s,20s";
  /** The longest delay of a delayed item, unless the options say otherwise. */
  static final Duration MAX_DELAY = Duration.ofSeconds(40);

  /** What an item is made to go through, from its sequence number. */
  enum Kind {
    PLAIN, DELAYED, NACKED, POISON, TTL, EXPIRING;

    static Kind of(long seq) {
      return switch ((int) (seq % 20)) {
        case 10, 11 -> DELAYED;
        case 12, 13 -> NACKED;
        case 14 -> POISON;
        case 15 -> TTL;
        case 16, 17 -> EXPIRING;
        default -> PLAIN;
      };
    }

    boolean endsAcked() {
      return this != POISON && this != TTL;
    }
  }

  /**
   * @param duration how long items are offered
   * @param rate items offered a second
   * @param restartEvery how often a server is restarted
   * @param sampleEvery how often memory is sampled
   * @param maxDelay the longest delay of a delayed item (the run waits for the last ones to come due)
   * @param minRestarts the run offers items past {@code duration} until it has restarted servers this often
   *     (a short run on a slow machine may otherwise end before its restarts)
   */
  public record Options(Duration duration, int rate, Duration restartEvery, Duration sampleEvery, int partitions,
      List<String> serverJvmOptions, Map<String, String> serverSettings, Duration maxDelay, int minRestarts) {
    public Options {
      if (rate < 1 || partitions < 2 || duration.isNegative() || restartEvery.isZero() || sampleEvery.isZero()
          || maxDelay.isNegative() || maxDelay.isZero() || minRestarts < 0) {
        throw new IllegalArgumentException("soak needs rate >= 1, partitions >= 2 and positive durations");
      }
      serverJvmOptions = List.copyOf(serverJvmOptions);
      serverSettings = Map.copyOf(serverSettings);
    }

    /** The bench mode's options: delays of up to 40 s; the run ends after {@code duration}, restarted or not. */
    public Options(Duration duration, int rate, Duration restartEvery, Duration sampleEvery, int partitions,
        List<String> serverJvmOptions, Map<String, String> serverSettings) {
      this(duration, rate, restartEvery, sampleEvery, partitions, serverJvmOptions, serverSettings, MAX_DELAY, 0);
    }
  }

  /** One memory sample of one server. */
  public record Sample(Duration at, String server, long heapAfterGcBytes, long rssBytes) {
    public String line() {
      return String.format("%7.0f s  %-3s heap after GC %,6d MiB  RSS %,6d MiB", at.toMillis() / 1e3, server,
          heapAfterGcBytes >> 20, rssBytes >> 20);
    }
  }

  /**
   * @param enqueued items enqueued
   * @param acked items that were to be acked and were handled to the end
   * @param deadLettered items that were to be dead-lettered and were, with the expected reason
   * @param missing items neither handled to the end nor dead-lettered (must be 0)
   * @param misplaced items that ended otherwise than their settings say (must be 0)
   * @param early delayed items handled before their due time (must be 0)
   * @param restarts server restarts during the run
   */
  public record Result(long enqueued, long acked, long deadLettered, long missing, long misplaced, long early,
      int restarts, List<Sample> samples) {
    /** Least-squares slope of the heap after GC over the samples, MiB a minute. */
    public double heapTrendMibPerMinute() {
      return slope(samples.stream().map(s -> new double[] {s.at().toMillis() / 60_000.0,
          s.heapAfterGcBytes() / (double) (1 << 20)}).toList());
    }

    /** Least-squares slope of the resident set over the samples, MiB a minute. */
    public double rssTrendMibPerMinute() {
      return slope(samples.stream().map(s -> new double[] {s.at().toMillis() / 60_000.0,
          s.rssBytes() / (double) (1 << 20)}).toList());
    }

    public String line() {
      return String.format("%,d items enqueued over %d restarts: %,d acked, %,d dead-lettered as set, %,d missing, "
              + "%,d otherwise than set, %,d delayed items early; heap after GC trend %+.2f MiB/min, RSS trend "
              + "%+.2f MiB/min over %d samples", enqueued, restarts, acked, deadLettered, missing, misplaced, early,
          heapTrendMibPerMinute(), rssTrendMibPerMinute(), samples.size());
    }
  }

  static double slope(List<double[]> points) {
    int n = points.size();
    if (n < 2) {
      return 0;
    }
    double mx = points.stream().mapToDouble(p -> p[0]).average().orElse(0);
    double my = points.stream().mapToDouble(p -> p[1]).average().orElse(0);
    double sxy = 0;
    double sxx = 0;
    for (double[] p : points) {
      sxy += (p[0] - mx) * (p[1] - my);
      sxx += (p[0] - mx) * (p[0] - mx);
    }
    return sxx == 0 ? 0 : sxy / sxx;
  }

  private SoakRun() {}

  public static Result run(String bootstrap, String cluster, Options o, Path dir, PrintStream log) {
    Map<String, String> settings = new HashMap<>(o.serverSettings());
    settings.put("ordo.cluster", cluster);
    settings.put("ordo.server.partitions", Integer.toString(o.partitions()));
    settings.put("ordo.server.http.port", "0");
    settings.put("ordo.delay.tiers", TIERS);
    settings.put("ordo.ttl.dead.letter", "true");
    Ledger ledger = new Ledger();
    List<Sample> samples = new ArrayList<>();
    ServerProcess[] servers = new ServerProcess[2];
    String[] names = {"a", "b"};
    long t0 = System.nanoTime();
    AtomicBoolean stop = new AtomicBoolean(); // no more items offered
    AtomicBoolean finished = new AtomicBoolean(); // the workers stop
    List<Thread> threads = new ArrayList<>();
    List<AutoCloseable> clients = new ArrayList<>();
    int restarts = 0;
    try {
      for (int i = 0; i < 2; i++) {
        servers[i] = startServer(names[i], bootstrap, o, settings, dir);
      }
      log.printf("soak: servers up; offering %d items/s for %d s, a restart every %d s%n", o.rate(),
          o.duration().toSeconds(), o.restartEvery().toSeconds());
      for (int i = 0; i < 2; i++) {
        LeaseConsumer c = new LeaseConsumer(workConfig(bootstrap, cluster));
        clients.add(c);
        c.start(ledger::handle);
      }
      QueueClient expiring = new QueueClient(Map.of("bootstrap.servers", bootstrap, QueueClientConfig.CLUSTER_CONFIG,
          cluster));
      clients.add(expiring);
      threads.add(thread("soak-expiring", () -> workExpiring(expiring, ledger, finished)));
      QueueProducer producer = new QueueProducer(Map.of("bootstrap.servers", bootstrap,
          QueueProducerConfig.CLUSTER_CONFIG, cluster));
      clients.add(producer);
      threads.add(thread("soak-producer", () -> produce(producer, ledger, o, stop, t0)));

      long nextRestart = t0 + o.restartEvery().toNanos();
      long nextSample = t0;
      long end = t0 + o.duration().toNanos();
      while (System.nanoTime() < end || restarts < o.minRestarts()) {
        long now = System.nanoTime();
        if (now >= nextSample) {
          for (int i = 0; i < 2; i++) {
            Sample s = new Sample(Duration.ofNanos(now - t0), names[i], servers[i].heapAfterGcBytes(),
                servers[i].rssBytes());
            samples.add(s);
            log.println("soak: " + s.line());
          }
          log.printf("soak: %,d enqueued, %,d handled to the end%n", ledger.enqueued.get(), ledger.acked());
          nextSample += o.sampleEvery().toNanos();
        }
        if (now >= nextRestart) {
          int i = restarts % 2;
          boolean kill = restarts % 4 == 1 || restarts % 4 == 2; // a stopped, b killed, a killed, b stopped, ...
          log.printf("soak: %s server %s%n", kill ? "killing (SIGKILL) and restarting" : "restarting (SIGTERM)",
              names[i]);
          if (kill) {
            servers[i].kill();
          } else {
            servers[i].stop();
          }
          servers[i] = startServer(names[i], bootstrap, o, settings, dir);
          restarts++;
          nextRestart += o.restartEvery().toNanos();
        }
        FailoverRun.pause(Math.min(nextSample, nextRestart) - System.nanoTime());
      }
      stop.set(true);
      log.printf("soak: offered for %d s; waiting for every item to end%n", (System.nanoTime() - t0) / 1_000_000_000L);
      DeadLetterReader dlq = new DeadLetterReader(bootstrap, new ClusterTopics(cluster), ledger);
      try {
        FailoverRun.awaitCondition("every item acked or dead-lettered", () -> {
          dlq.poll();
          return ledger.missing() == 0;
        }, o.maxDelay().plusMinutes(3), servers);
      } catch (IllegalStateException e) {
        log.println("soak: " + e.getMessage());
        for (long seq : ledger.missingSample(20)) {
          dev.ordo.api.ItemId id = ledger.ids.get(seq);
          log.printf("soak: missing item %d (%s) %s: %s%n", seq, Kind.of(seq), id,
              id == null ? "no id" : servers[0].get("/v1/items/" + id));
        }
      } finally {
        dlq.close();
      }
      return new Result(ledger.enqueued.get(), ledger.acked(), ledger.deadLettered(), ledger.missing(),
          ledger.misplaced.get(), ledger.early.get(), restarts, List.copyOf(samples));
    } finally {
      stop.set(true);
      finished.set(true);
      for (Thread t : threads) {
        t.interrupt();
        try {
          t.join(10_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      for (AutoCloseable c : clients) {
        try {
          c.close();
        } catch (Exception e) {
          // closing at the end of the run
        }
      }
      for (ServerProcess s : servers) {
        if (s != null) {
          s.close();
        }
      }
    }
  }

  private static ServerProcess startServer(String name, String bootstrap, Options o, Map<String, String> settings,
      Path dir) {
    Map<String, String> s = new HashMap<>(settings);
    s.put("ordo.server.state.dir", dir.resolve(name).toString());
    return ServerProcess.start(name, bootstrap, o.serverJvmOptions(), s, dir, Duration.ofMinutes(3));
  }

  private static Thread thread(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static Map<String, Object> workConfig(String bootstrap, String cluster) {
    Map<String, Object> c = FailoverRun.consumerConfig(bootstrap, cluster, WORK, 500);
    c.put(LeaseConsumerConfig.GROUP_ID_CONFIG, cluster + "-soak-workers");
    c.put(LeaseConsumerConfig.BACKOFF_INITIAL_CONFIG, 200L);
    return c;
  }

  private static void produce(QueueProducer producer, Ledger ledger, Options o, AtomicBoolean stop, long t0) {
    Random random = new Random(17);
    long seq = 0;
    while (!stop.get()) {
      long due = t0 + seq * 1_000_000_000L / o.rate();
      FailoverRun.pause(due - System.nanoTime());
      if (stop.get()) {
        return;
      }
      Kind kind = Kind.of(seq);
      long dueAt = kind == Kind.DELAYED ? System.currentTimeMillis() + 500 + random.nextLong(o.maxDelay().toMillis()) : 0;
      byte[] payload = ByteBuffer.allocate(16).putLong(seq).putLong(dueAt).array();
      EnqueueRequest.Builder b = switch (kind) {
        case PLAIN, NACKED -> EnqueueRequest.builder(WORK, "work", payload).priority((int) (seq % 10));
        case DELAYED -> EnqueueRequest.builder(WORK, "work", payload).deliverAfter(java.time.Instant.ofEpochMilli(dueAt));
        case POISON -> EnqueueRequest.builder(WORK, "poison", payload).maxAttempts(2);
        case TTL -> EnqueueRequest.builder(UNWORKED, "ttl", payload).ttl(Duration.ofSeconds(3));
        case EXPIRING -> EnqueueRequest.builder(EXPIRING, "expire", payload).lease(Duration.ofSeconds(2));
      };
      b.maxAttempts(kind == Kind.POISON ? 2 : 1_000);
      ledger.offered(seq);
      long s = seq;
      producer.enqueue(b.build()).whenComplete((id, e) -> {
        if (e != null) {
          ledger.refused(s);
        } else {
          ledger.ids.put(s, id);
        }
      });
      seq++;
    }
  }

  /** The expiring items' worker: lets each item's first lease run out, acks it on a later attempt. */
  private static void workExpiring(QueueClient client, Ledger ledger, AtomicBoolean stop) {
    while (!stop.get()) {
      try {
        List<QueueItem> items = client.dequeue(EXPIRING, "expire", 100, Duration.ofSeconds(1)).get();
        for (QueueItem item : items) {
          if (item.attempt() > 1) {
            // Counted when handled, as a lease consumer's handler is: an ack that does not apply leaves
            // the item to come back, and it is handled again.
            ledger.ended(ByteBuffer.wrap(item.payload()).getLong(), Kind.EXPIRING);
            client.ack(item);
          }
        }
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        // a server restarting: try again
      }
    }
  }

  /** Reads the dead-letter topic from its start and tells the ledger what it finds. */
  private static final class DeadLetterReader implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Ledger ledger;

    DeadLetterReader(String bootstrap, ClusterTopics topics, Ledger ledger) {
      this.ledger = ledger;
      this.consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
          ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
          ConsumerConfig.GROUP_ID_CONFIG, topics.cluster() + "-soak-dlq-" + System.nanoTime()),
          new ByteArrayDeserializer(), new ByteArrayDeserializer());
      consumer.subscribe(List.of(topics.dlq()));
    }

    void poll() {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        DeadLetter d = OrdoSerdes.DEAD_LETTER.decode(r.value());
        if (d.getItem() == null) {
          continue;
        }
        ByteBuffer p = d.getItem().getPayload();
        ledger.deadLettered(p.getLong(p.position()), d.getReason());
      }
    }

    @Override
    public void close() {
      consumer.close();
    }
  }

  /** Every item's fate, by sequence number. */
  static final class Ledger {
    final AtomicLong enqueued = new AtomicLong();
    final AtomicLong misplaced = new AtomicLong();
    final AtomicLong early = new AtomicLong();
    private final BitSet offered = new BitSet();
    private final BitSet ended = new BitSet();
    private final BitSet dead = new BitSet();
    final Map<Long, dev.ordo.api.ItemId> ids = new java.util.concurrent.ConcurrentHashMap<>();

    synchronized void offered(long seq) {
      offered.set(Math.toIntExact(seq));
      enqueued.incrementAndGet();
    }

    synchronized void refused(long seq) {
      offered.clear(Math.toIntExact(seq));
      enqueued.decrementAndGet();
    }

    void handle(LeasedItem item) {
      ByteBuffer p = ByteBuffer.wrap(item.payload());
      long seq = p.getLong();
      long dueAt = p.getLong();
      Kind kind = Kind.of(seq);
      if (kind == Kind.DELAYED && System.currentTimeMillis() < dueAt) {
        early.incrementAndGet();
      }
      if (kind == Kind.POISON) {
        throw new IllegalStateException("poison item " + seq);
      }
      if (kind == Kind.NACKED && item.attempt() == 1) {
        throw new RetryLater(Duration.ofSeconds(2), "first attempt of a nacked item");
      }
      ended(seq, kind);
    }

    synchronized void ended(long seq, Kind kind) {
      if (!kind.endsAcked()) {
        misplaced.incrementAndGet();
      }
      ended.set(Math.toIntExact(seq));
    }

    synchronized void deadLettered(long seq, DeadLetterReason reason) {
      Kind kind = Kind.of(seq);
      boolean expected = (kind == Kind.POISON && reason == DeadLetterReason.MAX_ATTEMPTS)
          || (kind == Kind.TTL && reason == DeadLetterReason.TTL_EXPIRED);
      if (!expected) {
        misplaced.incrementAndGet();
      }
      dead.set(Math.toIntExact(seq));
    }

    synchronized long acked() {
      return ended.cardinality();
    }

    synchronized long deadLettered() {
      return dead.cardinality();
    }

    synchronized List<Long> missingSample(int n) {
      BitSet left = (BitSet) offered.clone();
      left.andNot(ended);
      left.andNot(dead);
      return left.stream().limit(n).mapToObj(i -> (long) i).toList();
    }

    synchronized long missing() {
      BitSet left = (BitSet) offered.clone();
      left.andNot(ended);
      left.andNot(dead);
      return left.cardinality();
    }
  }
}
