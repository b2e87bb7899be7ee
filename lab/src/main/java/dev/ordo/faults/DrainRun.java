package dev.ordo.faults;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.ItemId;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.LeaseConsumer;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.QueueProducerConfig;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A large backlog on one server (issue 17): one {@code ordo server} process (with {@code -Xmx1g} in
 * the bench), {@code items} items enqueued as fast as the queue takes them, then drained by lease
 * consumers. Samples the server's heap after a full GC and its resident set every
 * {@code sampleEvery}, and the drain's pop rate at its start (its second tenth: the first includes the
 * consumers' start-up) and at its end (its last tenth).
 */
public final class DrainRun {
  private static final String NAMESPACE = "drain";

  /**
   * @param items the backlog
   * @param partitions partitions of the cluster's topics
   * @param payloadBytes payload of each item (at least 8)
   * @param serverJvmOptions JVM options of the server, e.g. {@code -Xmx1g}
   * @param serverSettings more settings of the server (its --config), e.g. for an experiment
   * @param sampleEvery how often memory is sampled
   */
  public record Options(long items, int partitions, int payloadBytes, List<String> serverJvmOptions,
      Duration sampleEvery, Map<String, String> serverSettings) {
    public Options {
      if (items < 10 || partitions < 1 || payloadBytes < 8) {
        throw new IllegalArgumentException("drain needs items >= 10, partitions >= 1, payload >= 8");
      }
      serverJvmOptions = List.copyOf(serverJvmOptions);
      serverSettings = Map.copyOf(serverSettings);
    }
  }

  /** One memory sample of the server. */
  public record Sample(Duration at, String phase, long handled, long heapAfterGcBytes, long rssBytes) {
    public String line() {
      return String.format("%6.0f s  %-8s handled %,12d  heap after GC %,6d MiB  RSS %,6d MiB", at.toMillis() / 1e3,
          phase, handled, heapAfterGcBytes >> 20, rssBytes >> 20);
    }
  }

  /**
   * @param enqueue how long enqueuing took (the producer's acks)
   * @param ingest how long until the queue had taken every item in
   * @param drain how long the drain took
   * @param startRate items/s over the drain's second tenth
   * @param endRate items/s over its last tenth
   */
  public record Result(long items, Duration enqueue, Duration ingest, Duration drain, double startRate,
      double endRate, List<Sample> samples) {
    public double endToStart() {
      return endRate / startRate;
    }

    public long maxHeapAfterGc() {
      return samples.stream().mapToLong(Sample::heapAfterGcBytes).max().orElse(-1);
    }

    public long maxRss() {
      return samples.stream().mapToLong(Sample::rssBytes).max().orElse(-1);
    }

    public String line() {
      return String.format("%,d items: enqueued in %.0f s, taken in after %.0f s, drained in %.0f s; pop rate "
              + "second tenth %,.0f/s, last tenth %,.0f/s (end/start %.2f); heap after GC at most %,d MiB, RSS at most %,d MiB",
          items, enqueue.toMillis() / 1e3, ingest.toMillis() / 1e3, drain.toMillis() / 1e3, startRate, endRate,
          endToStart(), maxHeapAfterGc() >> 20, maxRss() >> 20);
    }
  }

  private DrainRun() {}

  public static Result run(String bootstrap, String cluster, Options o, Path dir, PrintStream log) {
    Map<String, String> settings = new HashMap<>(o.serverSettings());
    settings.put("ordo.cluster", cluster);
    settings.put("ordo.server.partitions", Integer.toString(o.partitions()));
    settings.put("ordo.server.http.port", "0");
    settings.put("ordo.server.state.dir", dir.resolve("server").toString());
    List<Sample> samples = new ArrayList<>();
    AtomicLong handled = new AtomicLong();
    long t0 = System.nanoTime();
    String[] phase = {"enqueue"};
    try (ServerProcess server = ServerProcess.start("drain", bootstrap, o.serverJvmOptions(), settings, dir,
        Duration.ofMinutes(3))) {
      ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "drain-sampler");
        t.setDaemon(true);
        return t;
      });
      sampler.scheduleWithFixedDelay(() -> {
        Sample s = new Sample(Duration.ofNanos(System.nanoTime() - t0), phase[0], handled.get(),
            server.heapAfterGcBytes(), server.rssBytes());
        synchronized (samples) {
          samples.add(s);
        }
        log.println("drain: " + s.line());
      }, 0, o.sampleEvery().toMillis(), TimeUnit.MILLISECONDS);
      try {
        long e0 = System.nanoTime();
        enqueue(bootstrap, cluster, o);
        Duration enqueue = Duration.ofNanos(System.nanoTime() - e0);
        log.printf("drain: %,d items enqueued in %.0f s%n", o.items(), enqueue.toMillis() / 1e3);
        phase[0] = "ingest";
        FailoverRun.awaitIngested(bootstrap, new ClusterTopics(cluster), server);
        Duration ingest = Duration.ofNanos(System.nanoTime() - e0);
        log.printf("drain: taken in after %.0f s; draining%n", ingest.toMillis() / 1e3);
        phase[0] = "drain";
        AtomicLongArray marks = new AtomicLongArray(11); // nanoTime when handled reached k tenths
        long tenth = o.items() / 10;
        List<LeaseConsumer> consumers = new ArrayList<>();
        long d0 = System.nanoTime();
        try {
          for (int i = 0; i < 2; i++) {
            LeaseConsumer c = new LeaseConsumer(FailoverRun.consumerConfig(bootstrap, cluster, NAMESPACE, 4_000));
            consumers.add(c);
            c.start(item -> {
              long n = handled.incrementAndGet();
              if (n % tenth == 0 && n / tenth <= 10) {
                marks.set((int) (n / tenth), System.nanoTime());
              }
            });
          }
          FailoverRun.awaitCondition("every item drained", () -> handled.get() >= o.items(),
              Duration.ofHours(2), server);
        } finally {
          consumers.forEach(LeaseConsumer::close);
        }
        Duration drain = Duration.ofNanos(System.nanoTime() - d0);
        // The start is the second tenth: the first includes the consumers' start-up and the JIT's warm-up.
        double startRate = tenth / ((marks.get(2) - marks.get(1)) / 1e9);
        double endRate = tenth / ((marks.get(10) - marks.get(9)) / 1e9);
        phase[0] = "drained";
        synchronized (samples) {
          return new Result(o.items(), enqueue, ingest, drain, startRate, endRate, List.copyOf(samples));
        }
      } finally {
        sampler.shutdownNow();
      }
    }
  }

  private static void enqueue(String bootstrap, String cluster, Options o) {
    Map<String, Object> config = Map.of("bootstrap.servers", bootstrap, QueueProducerConfig.CLUSTER_CONFIG, cluster);
    try (QueueProducer producer = new QueueProducer(config)) {
      List<CompletableFuture<ItemId>> window = new ArrayList<>();
      for (long i = 0; i < o.items(); i++) {
        byte[] payload = ByteBuffer.allocate(o.payloadBytes()).putLong(i).array();
        window.add(producer.enqueue(EnqueueRequest.builder(NAMESPACE, "t" + (i % 4), payload)
            .priority((int) (i % 10)).build()));
        if (window.size() == 20_000) {
          CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).join();
          window.clear();
        }
      }
      CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).join();
    }
  }
}
