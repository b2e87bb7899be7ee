package dev.ordo.delay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.Durations;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * N records scheduled for one target topic with delays spread evenly from 0 to {@code maxDelay}, so
 * that they take every tier and combination of tiers; and the checks that they all arrived, once,
 * intact, never early.
 */
final class Workload {
  static final String ID = "ordo-test-id";

  record Scheduled(int id, long delay, long dueAt, Integer partition, byte[] key, byte[] value,
      List<Header> headers) {}

  final String target;
  final List<Scheduled> scheduled = new ArrayList<>();
  final List<CompletableFuture<RecordMetadata>> writes = new ArrayList<>();

  Workload(String target) {
    this.target = target;
  }

  /** Schedules {@code n} records, every 10th with an explicit partition, one with no key/value/headers. */
  Workload schedule(DelayClient client, int n, Duration maxDelay, long seed) {
    Random random = new Random(seed);
    long slot = maxDelay.toMillis() / n;
    for (int i = 0; i < n; i++) {
      long delay = i * slot + random.nextLong(slot + 1);
      long dueAt = System.currentTimeMillis() + delay;
      Integer partition = i % 10 == 0 ? i % 3 : null;
      byte[] key = i == 1 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
      byte[] value = i == 1 ? null : ("value-" + i + "-" + random.nextInt()).getBytes(StandardCharsets.UTF_8);
      List<Header> headers = new ArrayList<>(List.of(
          new RecordHeader(ID, String.valueOf(i).getBytes(StandardCharsets.UTF_8))));
      if (i % 2 == 0) {
        headers.add(new RecordHeader("trace", ("t" + random.nextLong()).getBytes(StandardCharsets.UTF_8)));
        headers.add(new RecordHeader("empty", null));
      }
      scheduled.add(new Scheduled(i, delay, dueAt, partition, key, value, headers));
      writes.add(client.schedule(target, partition, key, value, headers, Instant.ofEpochMilli(dueAt)));
    }
    return this;
  }

  /**
   * Waits until the broker acknowledged every scheduled record's first write. On a timeout it fails with
   * what was still pending (ids, delays, how many the client still held) and the stacks of the client's
   * and producers' threads, so a stall says where it was.
   */
  void awaitWritten(DelayClient client, Duration timeout) throws Exception {
    try {
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
          .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      List<String> pending = new ArrayList<>();
      for (int i = 0; i < writes.size(); i++) {
        if (!writes.get(i).isDone()) {
          pending.add(scheduled.get(i).id() + "@" + scheduled.get(i).delay() + "ms");
        }
      }
      StringBuilder stacks = new StringBuilder();
      Thread.getAllStackTraces().forEach((t, frames) -> {
        if (t.getName().startsWith("ordo-delay-client") || t.getName().startsWith("kafka-producer-network-thread")) {
          stacks.append('\n').append(t.getName()).append(' ').append(t.getState());
          for (StackTraceElement f : frames) {
            stacks.append("\n    at ").append(f);
          }
        }
      });
      throw new AssertionError(pending.size() + " of " + writes.size() + " writes not acknowledged after " + timeout
          + " (the client holds " + client.held() + "; load " + loadAverage() + "): "
          + pending.subList(0, Math.min(20, pending.size())) + stacks, e);
    }
  }

  /**
   * Sends a few records along every tier once and waits for them: the first transaction of each
   * forwarder and the first records to a topic pay for metadata, coordinators and group joins.
   */
  static void warmUp(DelayClient client, Arrivals arrivals, String target, List<Duration> tiers) throws Exception {
    List<CompletableFuture<RecordMetadata>> writes = new ArrayList<>();
    int n = 0;
    for (Duration tier : tiers) {
      for (long extra : new long[] {0, 150}) {
        writes.add(client.schedule(target, null, null, null,
            Instant.ofEpochMilli(System.currentTimeMillis() + tier.toMillis() + extra)));
        n++;
      }
    }
    writes.add(client.schedule(target, null, null, null, Instant.now()));
    n++;
    CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(30, java.util.concurrent.TimeUnit.SECONDS);
    int expected = n;
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> arrivals.count() >= expected);
    arrivals.clear();
  }

  static String loadAverage() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  /** How the scheduled delays go through the tiers (instant hops): each distinct path and its count. */
  Map<String, Long> paths(TierRouter router) {
    return scheduled.stream().collect(Collectors.groupingBy(
        s -> router.plan(s.delay()).stream().map(Durations::format).collect(Collectors.joining("+", "[", "]")),
        TreeMap::new, Collectors.counting()));
  }

  /**
   * Asserts every record arrived exactly once, intact, at or after its due time both by the wall clock
   * and by its timestamp; returns the lateness (arrival - due) of each.
   */
  Lateness verify(List<Arrivals.Arrival> arrivals) {
    Map<Integer, List<Arrivals.Arrival>> byId = new HashMap<>();
    for (Arrivals.Arrival a : arrivals) {
      byId.computeIfAbsent(id(a.record()), k -> new ArrayList<>()).add(a);
    }
    List<Integer> lost = new ArrayList<>();
    List<Integer> doubled = new ArrayList<>();
    List<String> early = new ArrayList<>();
    List<Long> lateness = new ArrayList<>();
    for (Scheduled s : scheduled) {
      List<Arrivals.Arrival> got = byId.getOrDefault(s.id(), List.of());
      if (got.isEmpty()) {
        lost.add(s.id());
        continue;
      }
      if (got.size() > 1) {
        doubled.add(s.id());
      }
      Arrivals.Arrival a = got.get(0);
      ConsumerRecord<byte[], byte[]> r = a.record();
      if (a.arrivedAt() < s.dueAt() || r.timestamp() < s.dueAt()) {
        early.add(s.id() + " arrived " + (s.dueAt() - a.arrivedAt()) + " ms early, stamped "
            + (s.dueAt() - r.timestamp()) + " ms early");
      }
      assertArrayEquals(s.key(), r.key(), "key of " + s.id());
      assertArrayEquals(s.value(), r.value(), "value of " + s.id());
      if (s.partition() != null) {
        assertEquals(s.partition(), r.partition(), "partition of " + s.id());
      }
      Header[] headers = r.headers().toArray();
      assertEquals(s.headers().size(), headers.length, "headers of " + s.id());
      for (int i = 0; i < headers.length; i++) {
        assertEquals(s.headers().get(i).key(), headers[i].key());
        assertArrayEquals(s.headers().get(i).value(), headers[i].value());
      }
      lateness.add(a.arrivedAt() - s.dueAt());
      latenessById.put(s.id(), a.arrivedAt() - s.dueAt());
    }
    assertTrue(lost.isEmpty(), () -> lost.size() + " records lost: " + lost);
    assertTrue(doubled.isEmpty(), () -> doubled.size() + " records doubled: " + doubled);
    assertTrue(early.isEmpty(), () -> early.size() + " records early: " + early);
    assertEquals(scheduled.size(), arrivals.size(), "arrivals");
    return Lateness.of(lateness);
  }

  private final Map<Integer, Long> latenessById = new HashMap<>();

  /** After {@link #verify}: the lateness of the records whose delay falls in each whole second. */
  Map<Long, Lateness> latenessByDelaySecond() {
    Map<Long, List<Long>> buckets = new TreeMap<>();
    for (Scheduled s : scheduled) {
      Long late = latenessById.get(s.id());
      if (late != null) {
        buckets.computeIfAbsent(s.delay() / 1000, k -> new ArrayList<>()).add(late);
      }
    }
    Map<Long, Lateness> result = new TreeMap<>();
    buckets.forEach((second, list) -> result.put(second, Lateness.of(list)));
    return result;
  }

  private static int id(ConsumerRecord<byte[], byte[]> r) {
    return Integer.parseInt(new String(r.headers().lastHeader(ID).value(), StandardCharsets.UTF_8));
  }
}
