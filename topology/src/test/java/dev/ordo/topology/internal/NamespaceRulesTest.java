package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.schema.PolicyDefaults;
import org.junit.jupiter.api.Test;

/** The merge of the server's settings and a namespace's policy. */
class NamespaceRulesTest {
  private static final QueueDefaults SERVER = new QueueDefaults(30_000, 5, null, 60_000);

  private static NamespacePolicy policy(PolicyDefaults d) {
    return NamespacePolicy.newBuilder().setNamespace("ns").setDefaults(d).setUpdatedAt(0).build();
  }

  @Test
  void withoutAPolicyOrWithoutDefaultsTheServersSettingsApply() {
    NamespaceRules none = NamespaceRules.of(SERVER, 10_240, null);
    assertEquals(new NamespaceRules(SERVER, DeliverySemantics.AT_LEAST_ONCE, 10_240), none);
    assertEquals(none, NamespaceRules.of(SERVER, 10_240, policy(null)));
    assertEquals(none, NamespaceRules.of(SERVER, 10_240, policy(new PolicyDefaults())), "every field left out");
  }

  @Test
  void aPolicyReplacesWhatItSetsAndKeepsTheRest() {
    NamespaceRules r = NamespaceRules.of(SERVER, 10_240, policy(PolicyDefaults.newBuilder()
        .setLeaseMs(5_000L).setTtlMs(60_000L).setAtMostOnce(true).build()));
    assertEquals(new QueueDefaults(5_000, 5, 60_000L, 60_000), r.defaults(), "park threshold stays the server's");
    assertEquals(DeliverySemantics.AT_MOST_ONCE, r.semantics());
    assertEquals(10_240, r.payloadLimit());
  }

  @Test
  void aPolicysPayloadLimitCanOnlyLowerTheServers() {
    assertEquals(100, NamespaceRules.of(SERVER, 10_240,
        policy(PolicyDefaults.newBuilder().setMaxPayloadBytes(100).build())).payloadLimit());
    assertEquals(10_240, NamespaceRules.of(SERVER, 10_240,
        policy(PolicyDefaults.newBuilder().setMaxPayloadBytes(1 << 20).build())).payloadLimit());
  }
}
