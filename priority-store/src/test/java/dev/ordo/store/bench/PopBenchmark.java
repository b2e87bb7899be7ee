package dev.ordo.store.bench;

import dev.ordo.store.PriorityStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Pop throughput of a RocksDB-backed {@link PriorityStore} holding {@link #items} ready items,
 * before and after {@link #popped} earlier pops. A pop is what the topology does for one item of a
 * dequeue and its ack: it is found by {@code readyHead(ns, topic, batch)}, leased
 * (READY → LEASED, a lease timer added) and acked (LEASED → deleted). Every pop leaves deletes
 * behind at the head of the topic's ready range, the tombstones RocksDB iterators crawl over
 * (rocksdb #5265).
 *
 * <ul>
 *   <li>{@code popped=0}: a store filled with {@code items} items, never popped;</li>
 *   <li>{@code popped=1000000}: {@code items + popped} items enqueued, {@code popped} of them
 *       popped, so {@code items} live items sit behind {@code popped} deleted ones;</li>
 *   <li>{@code cursors=kept}: one store instance, its scan cursors skip the tombstones;</li>
 *   <li>{@code cursors=reset}: a fresh instance for every batch, so every scan starts at the
 *       prefix with no cursor, as the first scan after a restart or a task move does.</li>
 * </ul>
 *
 * <p>One topic, one priority, ready times in enqueue order: a FIFO whose every pop adds a
 * tombstone right at the head, the worst case for the scan. Before each iteration the store is
 * topped up at the tail back to {@code items} live items, so each iteration starts with the same
 * live count. The store is Kafka Streams' own RocksDB store without the record cache and without
 * the changelog; in production the cache sits in front of it and absorbs part of the writes.
 * The score is items popped per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 6, time = 3)
public class PopBenchmark {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  @Param("1000000")
  int items;

  @Param({"0", "1000000"})
  int popped;

  @Param({"kept", "reset"})
  String cursors;

  private BenchQueue queue;
  private boolean reset;
  private long poppedInIteration;
  private long cpuAtStart;
  private final List<Double> cpuRates = new ArrayList<>();

  @Setup(Level.Trial)
  public void fill() {
    queue = BenchQueue.open(items, popped);
    reset = cursors.equals("reset");
  }

  @Setup(Level.Iteration)
  public void topUp() {
    queue.topUp();
    poppedInIteration = 0;
    cpuAtStart = THREADS.getCurrentThreadCpuTime();
  }

  /**
   * Pops per CPU-second of the benchmark thread, printed at the end of the trial next to JMH's
   * wall-clock score: on shared cores the wall clock also counts the time other processes hold
   * the CPU; the thread's CPU time does not (RocksDB's background flushes and compactions are in
   * neither).
   */
  @TearDown(Level.Iteration)
  public void recordCpuRate(IterationParams iteration) {
    double cpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpuAtStart) / 1e9;
    if (iteration.getType() == IterationType.MEASUREMENT) {
      cpuRates.add(poppedInIteration / cpuSeconds);
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    queue.close();
    double mean = cpuRates.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    double sd = Math.sqrt(cpuRates.stream().mapToDouble(r -> (r - mean) * (r - mean)).sum() / Math.max(1, cpuRates.size() - 1));
    System.out.printf("%nCPU-normalised (cursors=%s, items=%d, popped=%d): %,.0f ± %,.0f pops per CPU-second"
        + " (mean ± sd of %d iterations: %s)%n", cursors, items, popped, mean, sd, cpuRates.size(),
        cpuRates.stream().map(r -> String.format("%,.0f", r)).toList());
  }

  @Benchmark
  @OperationsPerInvocation(BenchQueue.BATCH)
  public int pop() {
    int n = queue.popBatch(reset);
    poppedInIteration += n;
    return n;
  }
}
