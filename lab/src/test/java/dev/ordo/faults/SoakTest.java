package dev.ordo.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The soak's 40-second version ({@code ordo bench --soak} runs 30 minutes): mixed load over two
 * {@code ordo server} processes, one restarted every 15 s (SIGTERM, then SIGKILL in turn), delayed items
 * due within 25 s (the bench mode's 40 s would only lengthen the wait for the last ones at the end; 25 s
 * still takes the 20 s tier); on a slow machine the load goes on until both restarts are done. Every
 * item must end as its settings say: acked, or dead-lettered for its attempts or its TTL; no delayed
 * item early. The memory samples are printed; their trend is read over the long run, not asserted.
 */
@KafkaCluster
class SoakTest {
  @Test
  void everyItemEndsAsItsSettingsSayThroughRestarts(RealKafka kafka) throws Exception {
    Path dir = Files.createTempDirectory("ordo-soak-test");
    SoakRun.Options options = new SoakRun.Options(Duration.ofSeconds(40), 50, Duration.ofSeconds(15),
        Duration.ofSeconds(20), 4, TestJvm.SERVER, java.util.Map.of(), Duration.ofSeconds(25), 2);

    SoakRun.Result r = SoakRun.run(kafka.bootstrapServers(), "soak-test", options, dir, System.out);

    System.out.println(r.line());
    assertTrue(r.restarts() >= 2, "servers restarted: " + r.restarts());
    assertTrue(r.enqueued() > 1_000, "items offered: " + r.enqueued());
    assertEquals(0, r.missing(), "items neither acked nor dead-lettered");
    assertEquals(0, r.misplaced(), "items that ended otherwise than their settings say");
    assertEquals(0, r.early(), "delayed items handled before they were due");
    assertEquals(r.enqueued(), r.acked() + r.deadLettered(), "every item ended once, one way");
    assertTrue(r.deadLettered() > 0 && r.acked() > 0, "both endings happened");
    assertTrue(r.samples().stream().allMatch(s -> s.heapAfterGcBytes() > 0 && s.rssBytes() > 0),
        "memory sampled from outside each server: " + r.samples());
  }
}
