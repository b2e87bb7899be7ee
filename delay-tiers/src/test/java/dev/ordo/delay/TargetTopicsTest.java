package dev.ordo.delay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class TargetTopicsTest {
  private static List<PartitionInfo> partitions(String topic, int n) {
    List<PartitionInfo> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(new PartitionInfo(topic, i, null, null, null));
    }
    return list;
  }

  @Test
  void anExistingPartitionIsFineAndOneBeyondTheCountIsNot() {
    TargetTopics targets = new TargetTopics(t -> partitions(t, 3));
    assertNull(targets.problem("orders", null));
    assertNull(targets.problem("orders", 2));
    assertEquals("target partition 3 does not exist: 'orders' has 3 partitions", targets.problem("orders", 3));
  }

  @Test
  void eachTopicIsLookedUpOnceAndAnUnknownOneIsAProblem() {
    List<String> lookups = new ArrayList<>();
    TargetTopics targets = new TargetTopics(t -> {
      lookups.add(t);
      throw new TimeoutException("not in metadata");
    });
    String problem = targets.problem("gone", null);
    assertTrue(problem.startsWith("target topic 'gone' not found"), problem);
    targets.problem("gone", 1);
    assertEquals(List.of("gone"), lookups);
  }

  @Test
  void aClusterErrorIsThrownNotBlamedOnTheRecord() {
    TargetTopics targets = new TargetTopics(t -> {
      throw new NetworkException("down");
    });
    assertThrows(NetworkException.class, () -> targets.problem("orders", null));
  }
}
