package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ordo.client.NamespacePolicy;
import org.junit.jupiter.api.Test;

class PolicyTextTest {

  @Test
  void policiesAreDescribedByTheirLimits() {
    assertEquals("admission 500/s (burst 50), maxBacklog 4,000, dispatch 500/s (burst 50), sidelineAfter 3 s",
        PolicyText.describe(SurgePlan.of(1_000, 30, 20, 0.5).tenantBPolicy()));
    assertEquals("admission 1,000,000,000/s (burst 1,000,000,000), maxBacklog 1,000,000,000,000,"
        + " dispatch 1,000,000,000/s (burst 1,000,000,000), sidelineAfter 3,600 s",
        PolicyText.describe(OrdoScenarios.UNBOUND_POLICY));
    assertEquals("admission 12.5/s (burst 2)",
        PolicyText.describe(new NamespacePolicy(null, new NamespacePolicy.Rate(12.5, 2), null)));
    assertEquals("shards 2, groupRate 1,000,000,000/s (burst 1,000,000,000)",
        PolicyText.describe(OrdoScenarios.TENANT_POLICY));
    assertEquals("none", PolicyText.describe(null));
    assertEquals("no limits", PolicyText.describe(new NamespacePolicy(null)));
  }
}
