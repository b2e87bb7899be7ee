package dev.ordo.bench.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordo.bench.HttpFrontEnd;
import dev.ordo.client.EnqueueRequest;
import dev.ordo.client.QueueProducer;
import dev.ordo.client.QueueProducerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The queue as HTTP clients see it: an {@code ordo server} on the bench's cluster, worked by
 * {@code workers} threads, each with a keep-alive HTTP/1.1 connection of its own (the JDK's
 * {@link HttpClient}, as a Python {@code requests.Session} would hold one), in this JVM.
 *
 * <ol>
 *   <li><b>throughput</b>: {@code items} items are enqueued (by a Java producer, so that the phase
 *       measures dequeue and ack) and become ready; then every worker loops: dequeue up to
 *       {@code dequeueCount} ready items ({@code waitMs} 0) and ack them as {@link AckMode} says: in
 *       one batch request ({@code POST /v1/items/ack}), or each with its own request
 *       ({@code POST /v1/items/{id}/ack}), until all are acked. Items/s from the first dequeue to
 *       the last ack; each dequeue's round trip is recorded (items are always ready then);</li>
 *   <li><b>latency</b> (when {@code loadShare} > 0): a producer enqueues at that share of the
 *       throughput just measured for {@code seconds}; the workers long-poll dequeue up to 10 items
 *       and ack each with its own request ({@code POST /v1/items/{id}/ack}), recording each ack's
 *       round trip;</li>
 *   <li><b>quiet</b> (after the latency phase): one client enqueues, dequeues and acks one item at a
 *       time, {@link #QUIET_CALLS} times, timing each call.</li>
 * </ol>
 */
public final class HttpScenario {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "bench";
  private static final String TOPIC = "t";

  private HttpScenario() {}

  /** How the throughput phase's workers ack the items of a dequeue. */
  public enum AckMode {
    /** All of them in one request, {@code POST /v1/items/ack}: what a client built for throughput does. */
    BATCH,
    /**
     * Each with its own request, {@code POST /v1/items/{id}/ack}: what a first HTTP client does, and
     * what pays the per-partition cost of single operations (issue 45).
     */
    EACH
  }

  /**
   * One run: the throughput phase's items/s, how many items it acked ({@code items}, or the run
   * failed) and in how many ack requests; the round trips of its dequeues; the latency phase's acks
   * and the rate they were made at (NaN without one: the offered half load, or less when acking one by
   * one could not keep up with it) and the quiet phase's round trips.
   */
  public record Result(int partitions, AckMode ackMode, double itemsPerSec, int acked, int ackRequests,
      Stats.Latency dequeue, Stats.Latency ack, double offeredPerSec, Quiet quiet) {}

  /** The round trips of single calls on a quiet server, one client on one keep-alive connection. */
  public record Quiet(Stats.Latency enqueue, Stats.Latency dequeue, Stats.Latency ack) {
    static final Quiet NONE = new Quiet(Stats.Latency.NONE, Stats.Latency.NONE, Stats.Latency.NONE);
  }

  /** Enqueue, dequeue and ack round trips of the quiet phase. */
  public static final int QUIET_CALLS = 200;

  public static Result run(BenchKafka kafka, HttpFrontEnd frontEnd, String cluster, int partitions, int items,
      int payloadBytes, int workers, int dequeueCount, AckMode ackMode, double loadShare, int seconds) {
    try (HttpFrontEnd.Running server = frontEnd.start(kafka.bootstrapServers(), cluster, partitions);
        QueueProducer producer = new QueueProducer(producerConfig(kafka, cluster))) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10)).build();
      Target base = new Target(server.address(), server.token());
      byte[] payload = new byte[payloadBytes];
      java.util.Arrays.fill(payload, (byte) 'x');

      enqueue(producer, payload, items);
      awaitReady(http, base, items);

      AtomicInteger acked = new AtomicInteger();
      AtomicInteger ackRequests = new AtomicInteger();
      long[][] dequeueNs = new long[workers][];
      int[] dequeues = new int[workers];
      Thread[] threads = new Thread[workers];
      long t0 = System.nanoTime();
      long deadline = t0 + TimeUnit.SECONDS.toNanos(300);
      for (int w = 0; w < workers; w++) {
        int me = w;
        dequeueNs[w] = new long[items + 16];
        threads[w] = new Thread(() -> {
          HttpClient own = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
          while (acked.get() < items && System.nanoTime() < deadline) {
            long d0 = System.nanoTime();
            JsonNode got = post(own, base, "/v1/namespaces/" + NS + "/dequeue",
                "{\"topics\": {\"" + TOPIC + "\": " + dequeueCount + "}, \"waitMs\": 0}");
            long took = System.nanoTime() - d0;
            JsonNode dequeued = got.get("items");
            if (dequeued.isEmpty()) {
              continue;
            }
            dequeueNs[me][dequeues[me]++ % dequeueNs[me].length] = took;
            acked.addAndGet(ack(own, base, dequeued, ackMode, ackRequests));
          }
        }, "bench-http-" + w);
        threads[w].start();
      }
      for (Thread t : threads) {
        t.join();
      }
      double seconds0 = (System.nanoTime() - t0) / 1e9;
      if (acked.get() < items) {
        throw new IllegalStateException("HTTP workers acked " + acked.get() + " of " + items + " items in 300 s");
      }
      Stats.Latency dequeue = Stats.latency(concat(dequeueNs, dequeues), total(dequeues), 1e6);

      Stats.Latency ack = new Stats.Latency(Double.NaN, Double.NaN, Double.NaN, 0);
      double rate = items / seconds0;
      double offered = loadShare > 0 ? loadShare * rate : Double.NaN;
      Quiet quiet = Quiet.NONE;
      if (loadShare > 0) {
        HalfLoad half = halfLoad(http, base, producer, payload, workers, offered, seconds);
        ack = half.ack();
        offered = half.ackedPerSec();
        quiet = quiet(base);
      }
      return new Result(partitions, ackMode, rate, acked.get(), ackRequests.get(), dequeue, ack, offered, quiet);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.toString(), e);
    } finally {
      kafka.deleteTopicsStartingWith(cluster + ".", cluster + "-");
    }
  }

  /**
   * Acks {@code items} (a dequeue's answer) as {@code mode} says, counting the requests in
   * {@code requests}; returns how many were applied.
   */
  private static int ack(HttpClient http, Target base, JsonNode items, AckMode mode, AtomicInteger requests) {
    int applied = 0;
    if (mode == AckMode.EACH) {
      for (JsonNode item : items) {
        requests.incrementAndGet();
        if (ackOne(http, base, item)) {
          applied++;
        }
      }
      return applied;
    }
    ArrayNode list = JSON.createArrayNode();
    for (JsonNode item : items) {
      ObjectNode a = list.addObject();
      a.put("id", item.get("id").asText());
      a.put("lease", item.get("lease").asText());
    }
    ObjectNode body = JSON.createObjectNode();
    body.set("items", list);
    requests.incrementAndGet();
    for (JsonNode r : post(http, base, "/v1/items/ack", body.toString()).get("results")) {
      if ("APPLIED".equals(r.path("result").asText())) {
        applied++;
      }
    }
    return applied;
  }

  /** Acks one dequeued item with its own request, under its lease; true when the ack was applied. */
  private static boolean ackOne(HttpClient http, Target base, JsonNode item) {
    JsonNode r = post(http, base, "/v1/items/" + item.get("id").asText() + "/ack",
        "{\"lease\": \"" + item.get("lease").asText() + "\"}");
    return "APPLIED".equals(r.path("result").asText());
  }

  /**
   * What a first user tries: one client, one keep-alive connection, nothing else running; enqueue an
   * item, dequeue one (it is ready), ack it, {@link #QUIET_CALLS} times, each call timed alone.
   */
  private static Quiet quiet(Target base) {
    HttpClient own = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    long[] enqueueNs = new long[QUIET_CALLS];
    long[] dequeueNs = new long[QUIET_CALLS];
    long[] ackNs = new long[QUIET_CALLS];
    for (int i = 0; i < QUIET_CALLS; i++) {
      long t0 = System.nanoTime();
      post(own, base, "/v1/namespaces/" + NS + "/topics/" + TOPIC + "/items", "{\"payload\": \"quiet\"}");
      long t1 = System.nanoTime();
      JsonNode got = post(own, base, "/v1/namespaces/" + NS + "/dequeue",
          "{\"topics\": {\"" + TOPIC + "\": 1}, \"waitMs\": 5000}");
      long t2 = System.nanoTime();
      JsonNode item = got.path("items").path(0);
      if (item.isMissingNode()) {
        throw new IllegalStateException("the quiet phase's dequeue found no item within 5 s");
      }
      ackOne(own, base, item);
      long t3 = System.nanoTime();
      enqueueNs[i] = t1 - t0;
      dequeueNs[i] = t2 - t1;
      ackNs[i] = t3 - t2;
    }
    return new Quiet(Stats.latency(enqueueNs, QUIET_CALLS, 1e6), Stats.latency(dequeueNs, QUIET_CALLS, 1e6),
        Stats.latency(ackNs, QUIET_CALLS, 1e6));
  }

  /**
   * The acks' round trips, and the rate they were made at: the pace, or what the workers managed when
   * acking one by one could not keep up with it (a slow host: the pace is half of the batch acks' rate).
   */
  private record HalfLoad(Stats.Latency ack, double ackedPerSec) {}

  /**
   * Paced enqueues; workers long-poll and ack each item alone, timing each ack. Workers that fall
   * behind the pace stop 60 s after it ends; their acks are timed all the same, at the rate they made.
   */
  private static HalfLoad halfLoad(HttpClient http, Target base, QueueProducer producer, byte[] payload, int workers,
      double perSec, int seconds) throws Exception {
    int total = (int) Math.max(1, perSec * seconds);
    AtomicInteger acked = new AtomicInteger();
    AtomicLong ackCount = new AtomicLong();
    long[] ackNs = new long[total + 1024];
    Thread[] threads = new Thread[workers];
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds + 60L);
    for (int w = 0; w < workers; w++) {
      threads[w] = new Thread(() -> {
        HttpClient own = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        while (acked.get() < total && System.nanoTime() < deadline) {
          JsonNode got = post(own, base, "/v1/namespaces/" + NS + "/dequeue",
              "{\"topics\": {\"" + TOPIC + "\": 10}, \"waitMs\": 1000}");
          for (JsonNode item : got.get("items")) {
            long a0 = System.nanoTime();
            boolean applied = ackOne(own, base, item);
            long took = System.nanoTime() - a0;
            if (applied) {
              acked.incrementAndGet();
            }
            long n = ackCount.getAndIncrement();
            if (n < ackNs.length) {
              ackNs[(int) n] = took;
            }
          }
        }
      }, "bench-http-latency-" + w);
      threads[w].start();
    }
    long start = System.nanoTime();
    long interval = (long) (1e9 / perSec);
    for (int i = 0; i < total; i++) {
      long due = start + i * interval;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      producer.enqueue(EnqueueRequest.builder(NS, TOPIC, payload).build());
    }
    for (Thread t : threads) {
      t.join();
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    if (acked.get() == 0) {
      throw new IllegalStateException("HTTP workers acked none of " + total + " paced items");
    }
    int n = (int) Math.min(ackCount.get(), ackNs.length);
    return new HalfLoad(Stats.latency(ackNs, n, 1e6), acked.get() < total ? acked.get() / elapsed : perSec);
  }

  /**
   * Enqueues {@code items} items and waits for Kafka to take them all; sends that failed (a broker
   * slow to lead a new topic's partitions) are sent again, twice at most, and a third failure says
   * how many failed and why.
   */
  private static void enqueue(QueueProducer producer, byte[] payload, int items) throws InterruptedException {
    List<Integer> pending = new ArrayList<>(items);
    for (int i = 0; i < items; i++) {
      pending.add(i);
    }
    for (int attempt = 1; ; attempt++) {
      List<CompletableFuture<?>> sends = new ArrayList<>(pending.size());
      for (int i : pending) {
        sends.add(producer.enqueue(EnqueueRequest.builder(NS, TOPIC, payload).priority(i % 10).build()));
      }
      producer.flush(); // returns when every send is acknowledged or failed
      List<Integer> failed = new ArrayList<>();
      Throwable cause = null;
      for (int k = 0; k < sends.size(); k++) {
        try {
          sends.get(k).get(0, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          failed.add(pending.get(k));
          cause = cause != null ? cause : e.getCause() != null ? e.getCause() : e;
        }
      }
      if (failed.isEmpty()) {
        return;
      }
      if (attempt == 3) {
        throw new IllegalStateException(failed.size() + " of " + items + " enqueues failed three times, the last"
            + " time with " + cause, cause);
      }
      pending = failed;
    }
  }

  private static void awaitReady(HttpClient http, Target base, int items) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      JsonNode topics = get(http, base, "/v1/namespaces/" + NS + "/topics").get("topics");
      for (JsonNode t : topics) {
        if (TOPIC.equals(t.path("topic").asText()) && t.path("ready").asLong() >= items) {
          return;
        }
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the " + items + " items were not all ready within 120 s");
  }

  /** The server's address, and the token its requests carry (null: none). */
  record Target(URI base, String token) {
    HttpRequest.Builder request(String path) {
      HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60));
      return token == null ? b : b.header("Authorization", "Bearer " + token);
    }
  }

  private static JsonNode post(HttpClient http, Target base, String path, String body) {
    return send(http, base.request(path).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build());
  }

  private static JsonNode get(HttpClient http, Target base, String path) {
    return send(http, base.request(path).GET().build());
  }

  private static JsonNode send(HttpClient http, HttpRequest request) {
    try {
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode body = JSON.readTree(r.body());
      if (r.statusCode() >= 500 || r.statusCode() == 401 || r.statusCode() == 403) {
        throw new IllegalStateException(request.method() + " " + request.uri().getPath() + " answered "
            + r.statusCode() + ": " + r.body());
      }
      return body;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Map<String, Object> producerConfig(BenchKafka kafka, String cluster) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", kafka.bootstrapServers());
    c.put(QueueProducerConfig.CLUSTER_CONFIG, cluster);
    return kafka.withRegistry(c);
  }

  private static long[] concat(long[][] perWorker, int[] counts) {
    long[] all = new long[total(counts)];
    int k = 0;
    for (int w = 0; w < perWorker.length; w++) {
      int n = Math.min(counts[w], perWorker[w].length);
      System.arraycopy(perWorker[w], 0, all, k, n);
      k += n;
    }
    return java.util.Arrays.copyOf(all, k);
  }

  private static int total(int[] counts) {
    int n = 0;
    for (int c : counts) {
      n += c;
    }
    return n;
  }
}
