package dev.ordo.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.client.NamespacePolicy;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The policy's JSON (docs/http-api.md, "Namespace policies") without a server: topic weights, group rates. */
class NamespacePolicyJsonTest {
  private static NamespacePolicy parse(String json) {
    return NamespaceApi.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void topicWeightsAreReadAndShown() {
    NamespacePolicy p = parse("{\"topicWeights\": {\"emails\": 3, \"sms\": 0.5}, \"groupWeights\": {\"bob\": 2}}");
    assertEquals(Map.of("emails", 3.0, "sms", 0.5), p.topicWeights());
    Map<String, Object> view = NamespaceApi.view("ns", p);
    assertEquals(Map.of("emails", 3.0, "sms", 0.5), view.get("topicWeights"));
    assertEquals(Map.of("bob", 2.0), view.get("groupWeights"));
  }

  @Test
  void aPolicyWithoutTopicWeightsShowsNone() {
    NamespacePolicy p = parse("{\"maxBacklog\": 5}");
    assertEquals(Map.of(), p.topicWeights());
    assertFalse(NamespaceApi.view("ns", p).containsKey("topicWeights"));
    assertEquals(Map.of(), parse("{\"topicWeights\": {}}").topicWeights());
  }

  @Test
  void badTopicWeightsAreRefusedNamingTheField() {
    for (String[] c : new String[][] {
        {"{\"topicWeights\": {\"emails\": 0}}", "topicWeights.emails must be a finite number > 0"},
        {"{\"topicWeights\": {\"emails\": -2}}", "topicWeights.emails"},
        {"{\"topicWeights\": {\"emails\": \"3\"}}", "topicWeights.emails"},
        {"{\"topicWeights\": {\"emails\": null}}", "topicWeights.emails"},
        {"{\"topicWeights\": {\"emails\": 1e999}}", "topicWeights.emails"},
        {"{\"topicWeights\": [3]}", "topicWeights must be an object of topic to value"},
        {"{\"topicWeights\": {\"a/b\": 1}}", "topicWeights: topic"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(c[0]), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
    }
  }

  @Test
  void shardsAreReadShownAndRefusedNamingTheField() {
    NamespacePolicy p = parse("{\"shards\": 2, \"groupConcurrency\": 4}");
    assertEquals(2, p.shards());
    assertEquals(2, NamespaceApi.view("ns", p).get("shards"));
    assertEquals(null, parse("{\"maxBacklog\": 5}").shards(), "unset: one partition per group key");
    assertFalse(NamespaceApi.view("ns", parse("{\"maxBacklog\": 5}")).containsKey("shards"));
    assertEquals(1, parse("{\"shards\": 1}").shards());
    for (String[] c : new String[][] {
        {"{\"shards\": 0}", "shards must be at least 1"},
        {"{\"shards\": 33}", "shards must be between 1 and 32"},
        {"{\"shards\": 1.5}", "shards"},
        {"{\"shards\": \"2\"}", "shards"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(c[0]), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new NamespacePolicy(null, null, null, null, null, null, null, null, null, null, 0));
    assertTrue(e.getMessage().startsWith("shards must be between 1 and 32"), e.getMessage());
  }

  @Test
  void groupRatesAreReadAndShown() {
    NamespacePolicy p = parse("{\"groupRate\": {\"perSecond\": 2, \"burst\": 5}, "
        + "\"groupRateOverrides\": {\"big\": {\"perSecond\": 50}}}");
    assertEquals(new NamespacePolicy.Rate(2, 5), p.groups().rate());
    assertEquals(Map.of("big", new NamespacePolicy.Rate(50, 50)), p.groups().rateOverrides(), "the burst: a second's");
    Map<String, Object> view = NamespaceApi.view("ns", p);
    assertEquals(Map.of("perSecond", 2.0, "burst", 5L), view.get("groupRate"));
    assertEquals(Map.of("big", Map.of("perSecond", 50.0, "burst", 50L)), view.get("groupRateOverrides"));
    Map<String, Object> body = new java.util.LinkedHashMap<>(view);
    body.remove("namespace");
    assertEquals(p, parse(new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(body).toString()),
        "what GET shows, PUT takes back");
    assertFalse(NamespaceApi.view("ns", parse("{\"groupConcurrency\": 2}")).containsKey("groupRate"));
  }

  @Test
  void badGroupRatesAreRefusedNamingTheField() {
    for (String[] c : new String[][] {
        {"{\"groupRate\": {\"perSecond\": 0}}", "groupRate.perSecond must be a number > 0"},
        {"{\"groupRate\": {\"perSecond\": 1, \"burst\": 0}}", "groupRate.burst"},
        {"{\"groupRate\": {\"perSecond\": 1, \"bursts\": 2}}", "groupRate.unknown field 'bursts'"},
        {"{\"groupRate\": 3}", "groupRate.an entry must be a JSON object"},
        {"{\"groupRateOverrides\": {\"big\": {\"perSecond\": \"fast\"}}}", "groupRateOverrides.big.perSecond"},
        {"{\"groupRateOverrides\": {\"big\": null}}", "groupRateOverrides.big"},
        {"{\"groupRateOverrides\": [1]}", "groupRateOverrides must be an object of group key to value"},
        {"{\"groupRateOverrides\": {\"a\\u0001\": {\"perSecond\": 1}}}", "groupRateOverrides: group key"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(c[0]), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
    }
  }
}
