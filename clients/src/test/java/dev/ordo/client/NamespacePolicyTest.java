package dev.ordo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Java policy's topic weights: checked, and carried to and from the stored record. */
class NamespacePolicyTest {
  @Test
  void topicWeightsGoToTheRecordAndBack() {
    NamespacePolicy policy = new NamespacePolicy(null, null, 10L, null, Duration.ofSeconds(5),
        new NamespacePolicy.Groups(null, Map.of(), Map.of("bob", 2.0)))
        .withTopicWeights(Map.of("emails", 3.0, "sms", 0.5));
    dev.ordo.schema.NamespacePolicy record = policy.toRecord("ns", 1L);
    assertEquals(Map.of("emails", 3.0, "sms", 0.5), record.getTopicWeights());
    NamespacePolicy back = NamespacePolicy.fromRecord(record);
    assertEquals(policy, back);
    assertEquals(Map.of("emails", 3.0, "sms", 0.5), back.topicWeights());
  }

  @Test
  void aPolicyWithoutTopicWeightsHasNoneAndWritesAnEmptyMap() {
    NamespacePolicy policy = new NamespacePolicy(null, null, 10L, null, null);
    assertEquals(Map.of(), policy.topicWeights());
    assertEquals(Map.of(), policy.toRecord("ns", 1L).getTopicWeights());
    assertEquals(policy, NamespacePolicy.fromRecord(policy.toRecord("ns", 1L)));
    assertEquals(policy, policy.withTopicWeights(null));
    assertEquals(Map.of("t", 2.0), policy.withDedupWindow(Duration.ofSeconds(1))
        .withTopicWeights(Map.of("t", 2.0)).withDedupWindow(null).topicWeights(), "kept by the other withers");
  }

  @Test
  void badWeightsAreRefusedNamingTheField() {
    NamespacePolicy policy = new NamespacePolicy(null);
    for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> policy.withTopicWeights(Map.of("emails", bad)));
      assertTrue(e.getMessage().startsWith("topicWeights.emails must be a finite number > 0"), e.getMessage());
    }
    Map<String, Double> nullWeight = new HashMap<>();
    nullWeight.put("emails", null);
    assertThrows(IllegalArgumentException.class, () -> policy.withTopicWeights(nullWeight));
    IllegalArgumentException name = assertThrows(IllegalArgumentException.class,
        () -> policy.withTopicWeights(Map.of("a/b", 1.0)));
    assertTrue(name.getMessage().startsWith("topicWeights: topic"), name.getMessage());
  }

  @Test
  void aStoredRecordWithAWeightNoPolicyCouldHoldIsReadWithoutIt() {
    dev.ordo.schema.NamespacePolicy record = new NamespacePolicy(null).toRecord("ns", 1L);
    record.setTopicWeights(new HashMap<>(Map.of("good", 2.0, "bad", -1.0)));
    assertEquals(Map.of("good", 2.0), NamespacePolicy.fromRecord(record).topicWeights());
  }

  @Test
  void groupRatesGoToTheRecordAndBack() {
    NamespacePolicy policy = new NamespacePolicy(null, null, 10L, null, null,
        new NamespacePolicy.Groups(2, Map.of(), Map.of("bob", 2.0)))
        .withGroupRate(new NamespacePolicy.Rate(2, 5), Map.of("big", NamespacePolicy.Rate.perSecond(50)));
    assertEquals(2, policy.groups().concurrency(), "the other group settings kept");
    dev.ordo.schema.NamespacePolicy record = policy.toRecord("ns", 1L);
    assertEquals(new dev.ordo.schema.Rate(2.0, 5L), record.getGroupRate());
    assertEquals(Map.of("big", new dev.ordo.schema.Rate(50.0, 50L)), record.getGroupRateOverrides());
    NamespacePolicy back = NamespacePolicy.fromRecord(record);
    assertEquals(policy, back);
    assertEquals(new NamespacePolicy.Rate(50, 50), back.groups().rateOf("big"));
    assertEquals(new NamespacePolicy.Rate(2, 5), back.groups().rateOf("anyone"));

    NamespacePolicy onlyRates = new NamespacePolicy(null).withGroupRate(null, Map.of("a", new NamespacePolicy.Rate(1, 1)));
    assertEquals(onlyRates, NamespacePolicy.fromRecord(onlyRates.toRecord("ns", 1L)), "a policy of group rates alone");
    NamespacePolicy none = new NamespacePolicy(null).withGroupRate(null, null);
    assertEquals(null, none.groups(), "no group settings at all");
    assertEquals(null, none.toRecord("ns", 1L).getGroupRateOverrides(), "null: no overrides (the schema's default)");
    NamespacePolicy sharded = new NamespacePolicy(null).withShards(2).withGroupRate(new NamespacePolicy.Rate(2, 5), null);
    assertEquals(2, sharded.shards(), "a group rate keeps the shards");
    assertEquals(new NamespacePolicy.Rate(2, 5), sharded.withShards(3).groups().rate(), "and shards the group rate");
  }

  @Test
  void badGroupRatesAreRefusedAndAStoredOneNoPolicyCouldHoldIsLeftOut() {
    Map<String, NamespacePolicy.Rate> nullRate = new HashMap<>();
    nullRate.put("a", null);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new NamespacePolicy(null).withGroupRate(null, nullRate));
    assertTrue(e.getMessage().startsWith("groupRateOverrides.a must be a rate"), e.getMessage());
    dev.ordo.schema.NamespacePolicy record = new NamespacePolicy(null).toRecord("ns", 1L);
    record.setGroupRateOverrides(new HashMap<>(Map.of("good", new dev.ordo.schema.Rate(1.0, 1L),
        "bad", new dev.ordo.schema.Rate(-1.0, 1L))));
    record.setGroupRate(new dev.ordo.schema.Rate(1.0, 0L));
    NamespacePolicy read = NamespacePolicy.fromRecord(record);
    assertEquals(Map.of("good", new NamespacePolicy.Rate(1, 1)), read.groups().rateOverrides());
    assertEquals(null, read.groups().rate());
  }
}
