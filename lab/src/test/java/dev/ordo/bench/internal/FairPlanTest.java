package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.client.NamespacePolicy;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class FairPlanTest {

  @Test
  void aliceSharesBobsPartitionAndLightSharesHeavysWhateverThePartitionCount() {
    for (int partitions = 1; partitions <= 64; partitions++) {
      FairPlan p = FairPlan.of(partitions, 100, 5, 10, 3);
      assertEquals(p.partition(), FairPlan.partitionOf(p.aliceKey(), partitions), "alice on " + partitions);
      assertEquals(p.partition(), FairPlan.partitionOf(p.bobKey(), partitions));
      assertEquals(p.weightsPartition(), FairPlan.partitionOf(p.lightKey(), partitions), "light on " + partitions);
      assertEquals(p.weightsPartition(), FairPlan.partitionOf(p.heavyKey(), partitions));
      assertNotEquals(p.bobKey(), p.aliceKey());
      assertNotEquals(p.heavyKey(), p.lightKey());
    }
  }

  @Test
  void thePartitionIsKafkasDefaultPartitionersForTheKey() {
    for (String key : new String[] {"bob", "alice", "alice-7", "heavy", "light-2"}) {
      byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
      assertEquals(BuiltInPartitioner.partitionForKey(bytes, 4), FairPlan.partitionOf(key, 4), key);
      assertEquals(BuiltInPartitioner.partitionForKey(bytes, 7), FairPlan.partitionOf(key, 7), key);
    }
  }

  @Test
  void theKeyIsTheFirstThatFitsThePlainNameWhenItDoes() {
    for (int partition = 0; partition < 8; partition++) {
      String key = FairPlan.keyOnPartition("alice", partition, 8);
      int n = key.equals("alice") ? 0 : Integer.parseInt(key.substring("alice-".length()));
      for (int i = 0; i < n; i++) {
        String earlier = i == 0 ? "alice" : "alice-" + i;
        assertNotEquals(partition, FairPlan.partitionOf(earlier, 8), earlier + " fits too");
      }
    }
    assertEquals("x", FairPlan.keyOnPartition("x", 0, 1));
    assertThrows(IllegalArgumentException.class, () -> FairPlan.keyOnPartition("x", 4, 4));
  }

  @Test
  void theWeightsPolicySetsOnlyTheWeights() {
    FairPlan p = FairPlan.of(4, 100, 5, 10, 3);
    NamespacePolicy policy = p.weightsPolicy();
    assertEquals(Map.of(p.heavyKey(), 3.0, p.lightKey(), 1.0), policy.groups().weights());
    assertEquals(null, policy.admissionRate());
    assertEquals(null, policy.groups().concurrency());
    assertEquals(3.0, FairPlan.weightRatio(), 1e-12);
  }

  @Test
  void sizesMustBePositive() {
    assertThrows(IllegalArgumentException.class, () -> FairPlan.of(4, 0, 5, 10, 3));
    assertThrows(IllegalArgumentException.class, () -> FairPlan.of(0, 1, 5, 10, 3));
  }
}
