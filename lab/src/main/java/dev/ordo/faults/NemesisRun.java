package dev.ordo.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.DeadLetterNow;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.LeaseConsumer;
import dev.ordo.client.LeaseConsumerConfig;
import dev.ordo.client.LeasedItem;
import dev.ordo.client.NackOptions;
import dev.ordo.client.QueueClient;
import dev.ordo.client.QueueClientConfig;
import dev.ordo.client.QueueItem;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.QueueProducerConfig;
import dev.ordo.client.RetryLater;
import dev.ordo.faults.history.History;
import dev.ordo.faults.history.HistoryChecker;
import dev.ordo.faults.history.Op;
import dev.ordo.schema.DeadLetter;
import dev.ordo.serde.OrdoSerdes;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A Jepsen-style run (issue 44): a mixed workload against three {@code ordo server} processes on a
 * Kafka cluster of three brokers, while a seeded nemesis injects faults in turn, every operation and
 * its answer logged with the client's clock, then the whole history judged by {@link HistoryChecker}.
 *
 * <p>The faults, one at a time: an instance killed (SIGKILL) and restarted; an instance paused
 * (SIGSTOP past the queue's 6 s session timeout, then SIGCONT: a zombie its group must fence); a
 * broker stopped and started again; latency, a stall or reset connections between instance {@code c}
 * and the brokers (it reaches them only through {@link FaultProxy}s); instance {@code b} restarted with
 * its queue's clock skewed by {@code clockSkew} ({@code ordo.clock.offset.ms}), and back.
 *
 * <p>The workload: a producer enqueues items of both guarantees with priorities, delays, times to live
 * and group keys; a {@link LeaseConsumer}, HTTP workers and {@link QueueClient} callers dequeue them,
 * and by the item's key ack them, nack them with a delay, extend, release or reject them, or fail them
 * to their last attempt. After the faults everything is healed and drained, the dead letters are read
 * and every item not known to be finished is looked up.
 */
public final class NemesisRun {
  static final String NS = "nem";
  private static final String TIERS = "1s,3s";
  private static final long LEASE_MS = 5_000;
  private static final int MAX_ATTEMPTS = 4;
  /** The final look-ups of items whose end the history does not show, this many at a time. */
  private static final int LOOKUPS_IN_FLIGHT = 8;
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @param duration how long the faults go on (the drain comes after)
   * @param seed the nemesis's and the workload's seed: the same seed, the same schedule of faults
   * @param rate items offered a second
   * @param faultEvery time between two faults (each lasts a few seconds)
   * @param clockSkew how far instance {@code b}'s clock is set off when its clock is the fault
   */
  public record Options(Duration duration, long seed, int partitions, int rate, Duration faultEvery,
      Duration clockSkew, List<String> serverJvmOptions, Duration drainMax) {
    public Options {
      serverJvmOptions = List.copyOf(serverJvmOptions);
    }

    /** The bench mode's options: the drain after the faults waits up to 90 s. */
    public Options(Duration duration, long seed, int partitions, int rate, Duration faultEvery, Duration clockSkew,
        List<String> serverJvmOptions) {
      this(duration, seed, partitions, rate, faultEvery, clockSkew, serverJvmOptions, Duration.ofSeconds(90));
    }
  }

  /**
   * A fault injected, when (since the start) and what; {@code fromMs}..{@code toMs} (wall clock) is its
   * window for the checker: from its start to its end and the recovery after it.
   */
  public record Fault(Duration at, String what, long fromMs, long toMs) {
    public String line() {
      return String.format("%6.1f s  %s", at.toMillis() / 1e3, what);
    }
  }

  /** How long after a fault ends the cluster is taken to be still recovering from it (tasks moving back). */
  private static final long RECOVERY_MS = 15_000;

  /** What the run did and what the checker found. */
  public record Result(HistoryChecker.Result check, List<Fault> faults, long enqueued, long operations) {
    public boolean ok() {
      return check.violations().isEmpty();
    }

    public String line() {
      return String.format("%,d operations on %,d items under %d faults (%s): %s", operations, enqueued,
          faults.size(), kinds(), check.summary());
    }

    private String kinds() {
      Map<String, Integer> n = new java.util.TreeMap<>();
      faults.forEach(f -> n.merge(f.what().split(" ")[0], 1, Integer::sum));
      return n.toString();
    }
  }

  /** The behaviour the workload gives an item, from its key. */
  enum Plan {
    ACK, NACK_ONCE, EXTEND, RELEASE_ONCE, REJECT, POISON;

    static Plan of(Random r) {
      int x = r.nextInt(100);
      return x < 62 ? ACK : x < 77 ? NACK_ONCE : x < 85 ? EXTEND : x < 90 ? RELEASE_ONCE : x < 95 ? REJECT : POISON;
    }
  }

  private final Options o;
  private final Path dir;
  private final PrintStream log;
  private final ConcurrentLinkedQueue<Op> ops = new ConcurrentLinkedQueue<>();
  private final Map<String, Plan> plans = new ConcurrentHashMap<>();
  private final List<Fault> faults = new ArrayList<>();
  private final AtomicBoolean producing = new AtomicBoolean(true);
  private final AtomicBoolean working = new AtomicBoolean(true);
  private final AtomicLong enqueued = new AtomicLong();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final ServerProcess[] servers = new ServerProcess[3];
  private final String[] names = {"a", "b", "c"};
  private KafkaCluster3 kafka;
  private String cluster;
  private long t0;

  private NemesisRun(Options o, Path dir, PrintStream log) {
    this.o = o;
    this.dir = dir;
    this.log = log;
  }

  public static Result run(Options o, Path dir, PrintStream log) {
    return new NemesisRun(o, dir, log).run();
  }

  private Result run() {
    cluster = "nemesis";
    List<AutoCloseable> clients = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    try {
      long begun = System.nanoTime();
      kafka = KafkaCluster3.start(dir.resolve("kafka"), Duration.ofMinutes(2));
      log.printf("nemesis: Kafka up in %.1f s (3 brokers, proxied listeners at %s)%n", since(begun),
          kafka.proxiedBootstrap());
      startServers();
      log.printf("nemesis: servers a, b, c up in %.1f s (c reaches Kafka through the proxies)%n", since(begun));
      String bootstrap = kafka.bootstrap();
      QueueProducer producer = new QueueProducer(Map.of("bootstrap.servers", bootstrap,
          QueueProducerConfig.CLUSTER_CONFIG, cluster));
      clients.add(producer);
      LeaseConsumer consumer = new LeaseConsumer(consumerConfig(bootstrap));
      clients.add(consumer);
      QueueClient client = new QueueClient(Map.of("bootstrap.servers", bootstrap,
          QueueClientConfig.CLUSTER_CONFIG, cluster, QueueClientConfig.CLIENT_ID_CONFIG, "nemesis-client"));
      clients.add(client);
      t0 = System.nanoTime();
      startedAt = now();
      consumer.start(this::handle);
      threads.add(thread("nemesis-producer", () -> produce(producer)));
      for (int w = 0; w < 2; w++) {
        int worker = w;
        threads.add(thread("nemesis-http-" + w, () -> httpWorker(worker)));
      }
      threads.add(thread("nemesis-client", () -> clientWorker(client)));

      Random nemesis = new Random(o.seed());
      long end = t0 + o.duration().toNanos();
      boolean skewed = false;
      int skews = 0;
      int turn = 0;
      sleepMs(o.faultEvery().toMillis() / 2);
      java.util.Set<Integer> kinds = new java.util.TreeSet<>();
      // Until the end, and on (a few turns at most) until every kind of fault has run once.
      while (System.nanoTime() < end || kinds.size() < 5 && turn < 15) {
        int kind = turn++ % 5; // each kind in turn, its target and shape drawn from the seed
        int target = target(nemesis);
        boolean ran = switch (kind) {
          case 0 -> target >= 0 && killAndRestart(target);
          case 1 -> target >= 0 && pause(target);
          case 2 -> stopBroker(nemesis.nextInt(KafkaCluster3.BROKERS));
          case 3 -> network(nemesis);
          default -> {
            long offset = skewed ? 0 : (skews % 2 == 0 ? 1 : -1) * o.clockSkew().toMillis(); // ahead, then behind
            boolean done = skewClock(offset);
            if (done) {
              skews += skewed ? 0 : 1;
              skewed = !skewed;
            }
            yield done;
          }
        };
        if (ran) {
          kinds.add(kind);
        }
        sleepMs(o.faultEvery().toMillis());
      }
      producing.set(false);
      awaitRestarts();
      heal();
      log.printf("nemesis: faults over at %.1f s; draining (%,d items enqueued)%n", since(t0), enqueued.get());
      drain(o.drainMax());
      log.printf("nemesis: drain over at %.1f s%n", since(t0));
      working.set(false);
      for (Thread t : threads) {
        t.join(30_000);
      }
      consumer.close();
      finalLookups();
      log.printf("nemesis: final look-ups over at %.1f s%n", since(t0));
      History history = new History(new ArrayList<>(ops));
      List<long[]> windows = new ArrayList<>();
      synchronized (faults) {
        faults.sort(java.util.Comparator.comparing(Fault::at));
        faults.forEach(f -> windows.add(new long[] {f.fromMs(), f.toMs()}));
      }
      HistoryChecker.Result check = HistoryChecker.check(history,
          HistoryChecker.Settings.defaults().withClockErrorMs(o.clockSkew().toMillis() + 1_000).withExactlyOnce(true)
              .withLeaseMs(LEASE_MS).withFaultWindows(windows));
      return new Result(check, List.copyOf(faults), enqueued.get(), history.ops().size());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      producing.set(false);
      working.set(false);
      for (AutoCloseable c : clients) {
        try {
          c.close();
        } catch (Exception e) {
          // closing anyway
        }
      }
      for (ServerProcess s : servers) {
        if (s != null) {
          s.close();
        }
      }
      if (kafka != null) {
        kafka.close();
      }
    }
  }

  // ---- the servers and the faults ----

  private static double since(long nanos) {
    return (System.nanoTime() - nanos) / 1e9;
  }

  /** Starts servers a, b and c side by side (each start waits mostly on Kafka) and waits until all three are up. */
  private void startServers() throws InterruptedException {
    List<Thread> starting = new ArrayList<>();
    List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int i = 0; i < 3; i++) {
      int k = i;
      starting.add(thread("nemesis-start-" + names[k], () -> {
        try {
          servers[k] = startServer(k, 0);
        } catch (RuntimeException e) {
          failures.add(e);
        }
      }));
    }
    for (Thread t : starting) {
      t.join();
    }
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
  }

  private ServerProcess startServer(int i, long clockOffsetMs) {
    Map<String, String> s = new HashMap<>();
    s.put("ordo.cluster", cluster);
    s.put("ordo.server.partitions", Integer.toString(o.partitions()));
    s.put("ordo.server.http.port", "0");
    s.put("ordo.server.state.dir", dir.resolve(names[i]).toString());
    s.put("ordo.delay.tiers", TIERS);
    s.put("ordo.ttl.dead.letter", "true");
    s.put("ordo.clock.offset.ms", Long.toString(clockOffsetMs));
    String bootstrap = i == 2 ? kafka.proxiedBootstrap() : kafka.bootstrap();
    return ServerProcess.start(names[i], bootstrap, o.serverJvmOptions(), s, dir, Duration.ofMinutes(3));
  }

  /** Starts a fault: logs it; {@link #ended} closes its window. */
  private long fault(String what) {
    long from = now();
    log.printf("nemesis: %6.1f s  %s%n", (System.nanoTime() - t0) / 1e9, what);
    pending.put(from, what);
    return from;
  }

  /** The fault started at {@code from} is over now: its window runs on for the recovery after it. */
  private void ended(long from) {
    String what = pending.remove(from);
    synchronized (faults) {
      faults.add(new Fault(Duration.ofMillis(from - startedAt), what, from, now() + RECOVERY_MS));
    }
  }

  private final Map<Long, String> pending = new ConcurrentHashMap<>();
  private long startedAt;
  /** Servers being restarted in the background: not a target of the next faults meanwhile. */
  private final boolean[] restarting = new boolean[3];

  /** A server that is up and not being restarted, from the seed; -1 when none is. */
  private int target(Random r) {
    int first = r.nextInt(3);
    for (int k = 0; k < 3; k++) {
      int i = (first + k) % 3;
      synchronized (restarting) {
        if (!restarting[i]) {
          return i;
        }
      }
    }
    return -1;
  }

  /** Restarts server {@code i} in the background; the fault started at {@code from} ends when it is up. */
  private void restartInBackground(int i, long offsetMs, long from) {
    synchronized (restarting) {
      restarting[i] = true;
    }
    thread("nemesis-restart-" + names[i], () -> {
      try {
        servers[i] = startServer(i, offsetMs);
      } finally {
        synchronized (restarting) {
          restarting[i] = false;
        }
        ended(from);
      }
    });
  }

  private boolean killAndRestart(int i) {
    long from = fault("kill " + names[i] + " (SIGKILL), restarted after 2 s");
    servers[i].kill();
    sleepMs(2_000);
    restartInBackground(i, i == 1 ? clockOffset : 0, from);
    return true;
  }

  private volatile long clockOffset;

  private boolean pause(int i) {
    long from = fault("pause " + names[i] + " (SIGSTOP for 9 s, past its 6 s session timeout, then SIGCONT)");
    signal(servers[i].pid(), "STOP");
    sleepMs(9_000);
    signal(servers[i].pid(), "CONT");
    ended(from);
    return true;
  }

  private boolean stopBroker(int b) {
    long from = fault("broker " + (b + 1) + " stopped, started again after 6 s");
    long t = System.nanoTime();
    kafka.broker(b).stop();
    long stopped = System.nanoTime();
    sleepMs(6_000);
    long started = System.nanoTime();
    kafka.broker(b).start();
    kafka.awaitBrokers(KafkaCluster3.BROKERS, Duration.ofMinutes(2));
    log.printf("nemesis: broker %d stopped in %.1f s, back %.1f s after its start%n", b + 1, (stopped - t) / 1e9,
        (System.nanoTime() - started) / 1e9);
    ended(from);
    return true;
  }

  private boolean network(Random r) {
    int shape = r.nextInt(3);
    List<FaultProxy> proxies = kafka.proxies();
    long from;
    switch (shape) {
      case 0 -> {
        from = fault("network c: 250 ms latency to every broker for 8 s");
        proxies.forEach(p -> p.delay(Duration.ofMillis(250)));
      }
      case 1 -> {
        from = fault("network c: every broker connection stalled for 8 s");
        proxies.forEach(FaultProxy::stall);
      }
      default -> {
        from = fault("network c: every broker connection reset, new ones refused for 8 s");
        proxies.forEach(p -> p.refuse(true));
        proxies.forEach(FaultProxy::resetAll);
      }
    }
    sleepMs(8_000);
    proxies.forEach(p -> {
      p.refuse(false);
      p.pass();
    });
    ended(from);
    return true;
  }

  private boolean skewClock(long offsetMs) {
    synchronized (restarting) {
      if (restarting[1]) {
        return false; // b is being restarted already: its clock waits for the next turn
      }
    }
    long from = fault(offsetMs == 0 ? "clock b: restarted with its clock right again"
        : "clock b: restarted with its queue's clock " + (offsetMs > 0 ? "+" : "") + offsetMs + " ms off");
    clockOffset = offsetMs;
    servers[1].stop();
    restartInBackground(1, offsetMs, from);
    return true;
  }

  private void awaitRestarts() {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
    while (System.nanoTime() < deadline) {
      synchronized (restarting) {
        if (!restarting[0] && !restarting[1] && !restarting[2]) {
          return;
        }
      }
      sleepMs(200);
    }
  }

  private void heal() {
    kafka.proxies().forEach(p -> {
      p.refuse(false);
      p.pass();
    });
    for (int i = 0; i < 3; i++) {
      signal(servers[i].pid(), "CONT");
      if (!servers[i].isAlive()) {
        servers[i] = startServer(i, i == 1 ? clockOffset : 0);
      }
    }
    for (int b = 0; b < KafkaCluster3.BROKERS; b++) {
      kafka.broker(b).start();
    }
  }

  private static void signal(long pid, String signal) {
    try {
      new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot send SIG" + signal + " to " + pid, e);
    }
  }

  // ---- the workload ----

  private long now() {
    return System.currentTimeMillis();
  }

  private void record(Op op) {
    ops.add(op);
  }

  private void produce(QueueProducer producer) {
    long start = System.nanoTime();
    for (long seq = 0; producing.get(); seq++) {
      long due = start + seq * 1_000_000_000L / o.rate() - System.nanoTime();
      if (due > 0) {
        sleepMs(due / 1_000_000);
      }
      Random r = new Random(o.seed() * 31 + seq);
      String key = "k" + seq;
      boolean amo = r.nextInt(100) < 30;
      int priority = r.nextInt(10);
      long dueAt = r.nextInt(100) < 20 ? now() + 500 + r.nextInt(3_500) : 0;
      long ttl = r.nextInt(100) < 10 ? 4_000 + r.nextInt(6_000) : 0;
      String group = r.nextInt(100) < 30 ? "g" + r.nextInt(5) : null;
      Plan plan = Plan.of(r);
      plans.put(key, plan);
      EnqueueRequest.Builder b = EnqueueRequest.builder(NS, "t" + r.nextInt(2), key.getBytes(StandardCharsets.UTF_8))
          .priority(priority).lease(Duration.ofMillis(LEASE_MS)).maxAttempts(MAX_ATTEMPTS);
      if (amo) {
        b.atMostOnce();
      }
      if (dueAt > 0) {
        b.deliverAfter(java.time.Instant.ofEpochMilli(dueAt));
      }
      if (ttl > 0) {
        b.ttl(Duration.ofMillis(ttl));
      }
      if (group != null) {
        b.groupKey(group);
      }
      Op.Semantics sem = amo ? Op.Semantics.AT_MOST_ONCE : Op.Semantics.AT_LEAST_ONCE;
      long sentAt = now();
      try {
        ItemId id = producer.enqueue(b.build()).get(30, TimeUnit.SECONDS);
        record(new Op.Enqueued(sentAt, "producer", key, id.toString(), sem, priority, dueAt, ttl, group, MAX_ATTEMPTS,
            id.partition()));
        enqueued.incrementAndGet();
      } catch (Exception e) {
        record(new Op.EnqueueUnknown(sentAt, "producer", key, sem, priority, dueAt, ttl, group, MAX_ATTEMPTS));
      }
    }
  }

  /** The lease consumer's handler: the item's plan, by its attempt. */
  private void handle(LeasedItem item) throws Exception {
    QueueItem d = item.delivered();
    String key = new String(item.payload(), StandardCharsets.UTF_8);
    record(new Op.Delivered(now(), "consumer", key, d.id().toString(), d.leaseId(), d.attempt(),
        d.leaseExpiresAt().toEpochMilli(), item.id().partition(), d.priority()));
    Plan plan = plans.getOrDefault(key, Plan.ACK);
    switch (plan) {
      case NACK_ONCE -> {
        if (d.attempt() == 1) {
          record(new Op.Nacked(now(), "consumer", key, d.leaseId(), 600, false, Op.Outcome.TIMEOUT));
          throw new RetryLater(Duration.ofMillis(600));
        }
      }
      case REJECT -> {
        record(new Op.Nacked(now(), "consumer", key, d.leaseId(), 0, true, Op.Outcome.TIMEOUT));
        throw new DeadLetterNow("rejected by the nemesis workload");
      }
      case POISON -> {
        record(new Op.Nacked(now(), "consumer", key, d.leaseId(), 0, false, Op.Outcome.TIMEOUT));
        throw new IllegalStateException("poison");
      }
      default -> {
        // ACK, EXTEND and RELEASE_ONCE: the consumer heartbeats and acks by itself
      }
    }
    record(new Op.Acked(now(), "consumer", key, d.id().toString(), d.leaseId(), Op.Outcome.TIMEOUT));
  }

  /** Loops dequeues over HTTP on a random live server, acting on each item as its plan says. */
  private void httpWorker(int worker) {
    Random r = new Random(o.seed() + 1_000 + worker);
    String me = "http-" + worker;
    while (working.get()) {
      ServerProcess s = servers[r.nextInt(3)];
      URI base;
      try {
        base = s.httpAddress();
      } catch (RuntimeException e) {
        sleepMs(200);
        continue;
      }
      JsonNode answer = post(base, "/v1/namespaces/" + NS + "/dequeue", "{\"topics\": {\"*\": 5}, \"waitMs\": 1000}");
      if (answer == null || !answer.has("items")) {
        sleepMs(100);
        continue;
      }
      for (JsonNode item : answer.get("items")) {
        String key = item.get("payload").asText();
        String id = item.get("id").asText();
        String lease = item.get("lease").asText();
        int attempt = item.get("attempt").asInt();
        record(new Op.Delivered(now(), me, key, id, lease, attempt,
            java.time.Instant.parse(item.get("leaseExpiresAt").asText()).toEpochMilli(),
            ItemId.parse(id).partition(), item.get("priority").asInt()));
        act(key, id, lease, attempt, me, (path, body) -> outcome(post(base, path, body)));
      }
    }
  }

  /** Loops dequeues through a {@link QueueClient}, acting on each item as its plan says. */
  private void clientWorker(QueueClient client) {
    String me = "client";
    while (working.get()) {
      List<QueueItem> got;
      try {
        got = client.dequeue(NS, "*", 5, Duration.ofSeconds(1)).get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        sleepMs(200);
        continue;
      }
      for (QueueItem d : got) {
        String key = new String(d.payload(), StandardCharsets.UTF_8);
        ItemId id = d.id();
        record(new Op.Delivered(now(), me, key, d.id().toString(), d.leaseId(), d.attempt(), d.leaseExpiresAt().toEpochMilli(),
            id.partition(), d.priority()));
        act(key, d.id().toString(), d.leaseId(), d.attempt(), me, (path, body) -> {
          try {
            String lease = d.leaseId();
            CommandOutcome out;
            if (path.endsWith("/ack")) {
              out = client.ack(id, lease).get(15, TimeUnit.SECONDS);
            } else if (path.endsWith("/extend")) {
              out = client.extend(id, lease, Duration.ofMillis(LEASE_MS)).get(15, TimeUnit.SECONDS);
            } else if (path.endsWith("/release")) {
              out = client.release(id, lease).get(15, TimeUnit.SECONDS);
            } else {
              JsonNode n = JSON.readTree(body);
              NackOptions nack = n.path("deadLetter").asBoolean()
                  ? NackOptions.deadLetter("rejected by the nemesis workload")
                  : NackOptions.retryAfter(Duration.ofMillis(n.path("delayMs").asLong()));
              out = client.nack(id, lease, nack).get(15, TimeUnit.SECONDS);
            }
            return outcome(out.result());
          } catch (Exception e) {
            return Op.Outcome.TIMEOUT;
          }
        });
      }
    }
  }

  /** Sends one command of an HTTP or client worker: its path and JSON body, and answers its outcome. */
  private interface Command {
    Op.Outcome send(String path, String body);
  }

  /** What a worker does with an item it holds, as the item's plan says. */
  private void act(String key, String id, String lease, int attempt, String me, Command command) {
    Plan plan = plans.getOrDefault(key, Plan.ACK);
    String base = "/v1/items/" + id;
    String leaseBody = "{\"lease\": \"" + lease + "\"}";
    switch (plan) {
      case NACK_ONCE -> {
        if (attempt == 1) {
          long at = now();
          Op.Outcome r = command.send(base + "/nack", "{\"lease\": \"" + lease + "\", \"delayMs\": 600}");
          record(new Op.Nacked(at, me, key, lease, 600, false, r));
          return;
        }
      }
      case REJECT -> {
        long at = now();
        Op.Outcome r = command.send(base + "/nack", "{\"lease\": \"" + lease + "\", \"deadLetter\": true}");
        record(new Op.Nacked(at, me, key, lease, 0, true, r));
        return;
      }
      case POISON -> {
        long at = now();
        Op.Outcome r = command.send(base + "/nack", "{\"lease\": \"" + lease + "\", \"delayMs\": 200}");
        record(new Op.Nacked(at, me, key, lease, 200, false, r));
        return;
      }
      case EXTEND -> {
        long at = now();
        Op.Outcome r = command.send(base + "/extend", "{\"lease\": \"" + lease + "\", \"leaseMs\": " + LEASE_MS + "}");
        record(new Op.Extended(at, me, key, lease, at + LEASE_MS, r));
      }
      case RELEASE_ONCE -> {
        if (attempt == 1) {
          long at = now();
          Op.Outcome r = command.send(base + "/release", leaseBody);
          record(new Op.Released(at, me, key, lease, r));
          return;
        }
      }
      default -> {
      }
    }
    long at = now();
    Op.Outcome r = command.send(base + "/ack", leaseBody);
    record(new Op.Acked(at, me, key, id, lease, r));
  }

  private JsonNode post(URI base, String path, String body) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
          .timeout(Duration.ofSeconds(15)).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
      JsonNode n = r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body());
      ((com.fasterxml.jackson.databind.node.ObjectNode) n).put("_status", r.statusCode());
      return n;
    } catch (Exception e) {
      return null;
    }
  }

  private static Op.Outcome outcome(JsonNode answer) {
    if (answer == null) {
      return Op.Outcome.TIMEOUT;
    }
    return switch (answer.path("_status").asInt()) {
      case 200 -> Op.Outcome.APPLIED;
      case 409 -> Op.Outcome.STALE_LEASE;
      case 404 -> Op.Outcome.UNKNOWN_ITEM;
      default -> Op.Outcome.TIMEOUT;
    };
  }

  private static Op.Outcome outcome(CommandOutcome.Result result) {
    return switch (result) {
      case APPLIED -> Op.Outcome.APPLIED;
      case STALE_LEASE -> Op.Outcome.STALE_LEASE;
      case UNKNOWN_ITEM -> Op.Outcome.UNKNOWN_ITEM;
      default -> Op.Outcome.TIMEOUT;
    };
  }

  // ---- the end ----

  /** Lets the workers drain the queue: until no server shows a ready, delayed or leased item, or {@code max}. */
  private void drain(Duration max) {
    long deadline = System.nanoTime() + max.toNanos();
    drainStartedAt = now();
    Map<String, Long> left = Map.of();
    List<Long> readings = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      sleepMs(2_000);
      JsonNode topics = get(servers[0], "/v1/namespaces/" + NS + "/topics");
      if (topics != null && topics.path("topics").isArray()) {
        Map<String, Long> now = new java.util.TreeMap<>();
        for (JsonNode t : topics.get("topics")) {
          for (String state : List.of("ready", "delayed", "leased", "parked")) {
            now.merge(state, t.path(state).asLong(), Long::sum);
          }
        }
        left = now;
        long sum = now.values().stream().mapToLong(Long::longValue).sum();
        readings.add(sum);
        if (sum == 0) {
          sleepMs(2_000); // the stats lag a second
          logDrain(readings);
          return;
        }
      }
    }
    log.println("nemesis: the drain ran out of time with " + left + " left; what is left is looked up");
    logDrain(readings);
  }

  private long drainStartedAt;

  /**
   * What the drain did, to tell a slow drain from a stuck one: the items left at each reading, and the
   * deliveries during the drain by partition and by worker (a partition with items left and no delivery is stuck).
   */
  private void logDrain(List<Long> readings) {
    Map<Integer, Integer> byPartition = new java.util.TreeMap<>();
    Map<String, Integer> byWorker = new java.util.TreeMap<>();
    for (Op op : ops) {
      if (op instanceof Op.Delivered d && d.at() >= drainStartedAt) {
        byPartition.merge(d.partition(), 1, Integer::sum);
        byWorker.merge(d.client(), 1, Integer::sum);
      }
    }
    log.printf("nemesis: drain: items left every 2 s %s; %.1f s of deliveries by partition %s, by worker %s%n", readings,
        (now() - drainStartedAt) / 1e3, byPartition, byWorker);
  }

  private JsonNode get(ServerProcess s, String path) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.httpAddress() + path))
          .timeout(Duration.ofSeconds(15)).GET().build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
    } catch (Exception e) {
      return null;
    }
  }

  /** The dead letters, a look-up of every item whose end the history does not show, the servers' count. */
  private void finalLookups() {
    // The stats lag the queue by about a second: after a drain that ran out of time, the workers' last acks
    // may not show yet. The count is compared only when it holds still, before and after the look-ups.
    long began = System.nanoTime();
    Long queued = settledQueued();
    long settled = System.nanoTime();
    Map<String, DeadLetter> dead = readDeadLetters();
    long deadRead = System.nanoTime();
    dead.forEach((key, d) -> record(new Op.DeadLettered(d.getDeadAt(), "dlq", key, d.getItemId(), d.getReason().name(),
        d.getAttempts())));
    History h = new History(new ArrayList<>(ops));
    // The look-ups are independent reads: LOOKUPS_IN_FLIGHT at a time (one after another, a few hundred of them
    // took ~25 s on a slow host, each mostly waiting on a forward to the partition's owner).
    java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(LOOKUPS_IN_FLIGHT);
    List<java.util.concurrent.CompletableFuture<Void>> lookups = new ArrayList<>();
    Map<String, Integer> answers = new java.util.concurrent.ConcurrentSkipListMap<>();
    for (History.Trail t : h.items()) {
      if (t.enqueued() == null || t.acked() || dead.containsKey(t.itemKey())) {
        continue;
      }
      inFlight.acquireUninterruptibly();
      java.util.concurrent.CompletableFuture<Void> lookup;
      try {
        lookup = http.sendAsync(HttpRequest.newBuilder(URI.create(servers[0].httpAddress() + "/v1/items/"
            + t.enqueued().itemId())).timeout(Duration.ofSeconds(15)).GET().build(), HttpResponse.BodyHandlers.ofString())
            .handle((r, e) -> {
              answers.merge(e != null ? e.getClass().getSimpleName() : Integer.toString(r.statusCode()), 1, Integer::sum);
              if (e != null || r.statusCode() != 200 && r.statusCode() != 404) {
                // Not known to be gone: an answer of neither kind (a partition moving, a forward timing out).
                record(new Op.Remaining(now(), "lookup-failed", t.itemKey()));
              } else if (r.statusCode() == 200) {
                record(new Op.Remaining(now(), "lookup", t.itemKey()));
              }
              return null;
            });
      } catch (RuntimeException e) {
        record(new Op.Remaining(now(), "lookup-failed", t.itemKey())); // not known to be gone
        lookup = java.util.concurrent.CompletableFuture.completedFuture(null);
      }
      lookups.add(lookup.whenComplete((v, e) -> inFlight.release()));
    }
    java.util.concurrent.CompletableFuture.allOf(lookups.toArray(java.util.concurrent.CompletableFuture[]::new)).join();
    Map<Integer, Integer> remaining = new java.util.TreeMap<>();
    Map<String, Integer> partitionOf = new HashMap<>();
    for (Op op : ops) {
      if (op instanceof Op.Enqueued e) {
        partitionOf.put(e.itemKey(), e.partition());
      }
    }
    for (Op op : ops) {
      if (op instanceof Op.Remaining m) {
        remaining.merge(partitionOf.getOrDefault(m.itemKey(), -1), 1, Integer::sum);
      }
    }
    log.printf("nemesis: items still in the queue after the drain, by partition: %s (the count settled in %.1f s,"
        + " %,d dead letters read in %.1f s, %,d look-ups in %.1f s, answered %s)%n", remaining, (settled - began) / 1e9,
        dead.size(), (deadRead - settled) / 1e9, lookups.size(), since(deadRead), answers);
    Long after = queuedNow();
    if (queued != null && queued.equals(after)) {
      record(new Op.ServerCounts(now(), "stats", Map.of(HistoryChecker.QUEUED, queued)));
    } else {
      log.printf("nemesis: the servers' count of queued items moved during the final look-ups (%s, then %s):"
          + " not compared%n", queued, after);
    }
  }

  /** The servers' count of queued items once two readings 1.5 s apart agree (null: none within 15 s). */
  private Long settledQueued() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    Long last = queuedNow();
    while (System.nanoTime() < deadline) {
      sleepMs(1_500);
      Long now = queuedNow();
      if (now != null && now.equals(last)) {
        return now;
      }
      last = now;
    }
    return null;
  }

  /** The servers' stats: items ready, delayed, leased, parked or in overflow, over the namespace's topics (null: no answer). */
  private Long queuedNow() {
    JsonNode topics = get(servers[0], "/v1/namespaces/" + NS + "/topics");
    if (topics == null || !topics.path("topics").isArray()) {
      return null;
    }
    long queued = 0;
    for (JsonNode t : topics.get("topics")) {
      queued += t.path("ready").asLong() + t.path("delayed").asLong() + t.path("leased").asLong()
          + t.path("parked").asLong() + t.path("overflow").asLong();
    }
    return queued;
  }

  private Map<String, DeadLetter> readDeadLetters() {
    Map<String, DeadLetter> out = new HashMap<>();
    ClusterTopics topics = new ClusterTopics(cluster);
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        kafka.bootstrap(), ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      // Every partition from its start, assigned rather than subscribed: no group to join (a few seconds here).
      List<org.apache.kafka.common.TopicPartition> partitions = new ArrayList<>();
      c.partitionsFor(topics.dlq()).forEach(i -> partitions.add(new org.apache.kafka.common.TopicPartition(i.topic(),
          i.partition())));
      c.assign(partitions);
      c.seekToBeginning(partitions);
      long quietSince = System.nanoTime();
      while (System.nanoTime() - quietSince < TimeUnit.SECONDS.toNanos(5)) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          quietSince = System.nanoTime();
          DeadLetter d = OrdoSerdes.DEAD_LETTER.decode(r.value());
          if (d.getItem() != null) {
            out.put(StandardCharsets.UTF_8.decode(d.getItem().getPayload().duplicate()).toString(), d);
          }
        }
      }
    }
    return out;
  }

  private Map<String, Object> consumerConfig(String bootstrap) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", bootstrap);
    c.put(QueueClientConfig.CLUSTER_CONFIG, cluster);
    c.put(LeaseConsumerConfig.GROUP_ID_CONFIG, "nemesis-workers");
    c.put(LeaseConsumerConfig.NAMESPACE_CONFIG, NS);
    c.put(LeaseConsumerConfig.MAX_IN_FLIGHT_CONFIG, 16);
    c.put(LeaseConsumerConfig.BACKOFF_INITIAL_CONFIG, 200L);
    c.put("consumer." + ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
    return c;
  }

  private static Thread thread(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void sleepMs(long ms) {
    try {
      Thread.sleep(Math.max(0, ms));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
