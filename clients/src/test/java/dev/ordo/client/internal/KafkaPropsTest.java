package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class KafkaPropsTest {
  @Test
  void aClientsOwnPrefixWinsAndOrdoKeysAndOtherClientsKeysAreLeftOut() {
    Map<String, Object> c = KafkaProps.of(Map.of("bootstrap.servers", "b:9092", "client.id", "plain",
        "consumer.client.id", "mine", "producer.linger.ms", "5", "ordo.cluster", "x", "group.id", "g"),
        KafkaProps.CONSUMER_PREFIX, Set.of("group.id"));
    assertEquals(Map.of("bootstrap.servers", "b:9092", "client.id", "mine"), c);
  }

  @Test
  void aPositionReaderHasNoGroupReadsCommittedAndIsNotHeldByTheBroker() {
    Map<String, Object> user = Map.of("bootstrap.servers", "b:9092", "security.protocol", "SASL_SSL",
        ConsumerConfig.GROUP_ID_CONFIG, "theirs", ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "i-1",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, true,
        ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
    Map<String, Object> c = KafkaProps.positionReader(user);
    assertEquals("b:9092", c.get("bootstrap.servers"));
    assertEquals("SASL_SSL", c.get("security.protocol"));
    assertFalse(c.containsKey(ConsumerConfig.GROUP_ID_CONFIG));
    assertFalse(c.containsKey(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
    assertEquals("read_committed", c.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG));
    assertEquals(false, c.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG));
    assertEquals(KafkaProps.POSITION_READER_FETCH_WAIT_MS, c.get(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG));
    assertEquals(500, user.get(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), "the caller's map is not changed");
  }
}
