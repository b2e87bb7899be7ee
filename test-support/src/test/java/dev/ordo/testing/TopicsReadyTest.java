package dev.ordo.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.TopicsReady;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * {@link TopicsReady} returns only once the broker has opened every partition of new topics, the
 * state a produce request needs (KAFKA-15591: a producer racing the opening can be stuck until its
 * delivery timeout); and it gives up with a clear error on a topic that never appears.
 */
@KafkaCluster
class TopicsReadyTest {
  @Test
  void returnsOnceTheBrokerHasOpenedEveryPartition(RealKafka kafka) throws Exception {
    List<String> names = new ArrayList<>();
    List<NewTopic> topics = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      names.add("ready.t" + i);
      topics.add(new NewTopic("ready.t" + i, 24, (short) 1));
    }
    try (Admin admin = kafka.admin()) {
      admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
      TopicsReady.await(admin, names, Duration.ofSeconds(30));
    }
    BrokerServer broker = kafka.brokers().values().iterator().next();
    List<TopicPartition> closed = new ArrayList<>();
    for (String name : names) {
      for (int p = 0; p < 24; p++) {
        TopicPartition tp = new TopicPartition(name, p);
        if (broker.replicaManager().onlinePartition(tp).isEmpty()
            || !broker.replicaManager().onlinePartition(tp).get().isLeader()) {
          closed.add(tp);
        }
      }
    }
    assertEquals(List.of(), closed, "partitions not open for writes on their leader");
  }

  @Test
  void failsWithTheTopicsNameWhenItNeverAppears(RealKafka kafka) {
    try (Admin admin = kafka.admin()) {
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> TopicsReady.await(admin, List.of("ready.never"), Duration.ofMillis(500)));
      assertTrue(e.getMessage().contains("ready.never"), e.getMessage());
    }
  }
}
