package dev.ordo.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerRequestsTest {
  @Test
  void requestsSinceTheStartPerItemTheMostFrequentFirstTheRareLeftOut() {
    Map<String, Long> before = Map.of("Produce", 100L, "FetchConsumer", 50L, "Heartbeat", 7L);
    Map<String, Long> after = Map.of("Produce", 300L, "FetchConsumer", 450L, "Heartbeat", 8L, "EndTxn", 40L);

    Map<String, Double> perItem = BrokerRequests.perItem(before, after, 1_000);

    assertEquals(List.of("FetchConsumer", "Produce", "EndTxn"), List.copyOf(perItem.keySet()),
        "a kind new since the start counts from 0; one request in 1,000 items is left out");
    assertEquals(0.4, perItem.get("FetchConsumer"), 1e-9);
    assertEquals(0.2, perItem.get("Produce"), 1e-9);
    assertEquals(0.04, perItem.get("EndTxn"), 1e-9);
  }
}
