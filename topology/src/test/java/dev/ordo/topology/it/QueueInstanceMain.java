package dev.ordo.topology.it;

import dev.ordo.topology.QueueConfig;
import dev.ordo.topology.QueueService;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.streams.StreamsConfig;

/** An Ordo queue instance in its own JVM, so a test can kill it with SIGKILL mid-transaction. */
public final class QueueInstanceMain {
  public static void main(String[] args) throws InterruptedException {
    String bootstrap = args[0];
    String stateDir = args[1];
    int partitions = Integer.parseInt(args[2]);
    String cluster = args.length > 3 ? args[3] : "crash";
    int standbys = args.length > 4 ? Integer.parseInt(args[4]) : 1;
    QueueService service = new QueueService(
        Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, StreamsConfig.STATE_DIR_CONFIG, stateDir,
            StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbys),
        Map.of(QueueConfig.CLUSTER_CONFIG, cluster), partitions);
    service.start();
    // STARTED once it runs with partitions of its own: a survivor started after it then joins a group
    // whose tasks are here (started together, the other instance could get them all, and a kill of
    // this one would take nothing over).
    while (!service.isRunning() || service.streams().metadataForLocalThreads().stream()
        .allMatch(t -> t.activeTasks().isEmpty())) {
      Thread.sleep(50);
    }
    System.out.println("STARTED");
    new CountDownLatch(1).await();
  }
}
