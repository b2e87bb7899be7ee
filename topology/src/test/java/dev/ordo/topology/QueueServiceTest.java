package dev.ordo.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The queue's default stream-thread count (decisions D14): a thread per core but one, within [1, partitions]. */
class QueueServiceTest {

  @Test
  void aStreamThreadPerCoreButOneNeverMoreThanThePartitionsNorFewerThanOne() {
    int cores = Runtime.getRuntime().availableProcessors();
    assertEquals(1, QueueService.defaultStreamThreads(0), "partitions unknown: one thread");
    assertEquals(1, QueueService.defaultStreamThreads(1), "one partition: one thread");
    assertEquals(Math.max(1, cores - 1), QueueService.defaultStreamThreads(1_000), "many partitions: cores - 1");
    assertEquals(Math.max(1, Math.min(cores - 1, 3)), QueueService.defaultStreamThreads(3));
  }
}
