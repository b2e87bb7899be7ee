package dev.ordo.topology;

import static dev.ordo.topology.QueueDriver.ALICE;
import static dev.ordo.topology.QueueDriver.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Demand;
import dev.ordo.schema.NamespacePolicy;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Topic weights within a namespace (docs/queue.md, "Topic weights"), through the topology: a dequeue
 * over several topics shares its items between the ready topics by weight, within the priority order.
 */
class TopicWeightsTopologyTest {
  private final QueueDriver q = new QueueDriver();

  @AfterEach
  void close() {
    q.close();
  }

  private void weights(Map<String, Double> weights) {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0).setTopicWeights(weights).build());
  }

  private void backlog(String topic, int priority, int n) {
    for (int i = 0; i < n; i++) {
      q.enqueue(item(topic, priority).build());
    }
  }

  private static long count(List<DeliveredItem> got, String topic) {
    return got.stream().filter(d -> topic.equals(d.getTopic())).count();
  }

  private static List<String> topics(List<DeliveredItem> got) {
    return got.stream().map(DeliveredItem::getTopic).toList();
  }

  @Test
  void aStarDequeueTakesTwoBackloggedTopicsThreeToOne() {
    weights(Map.of("heavy", 3.0, "light", 1.0));
    backlog("light", 0, 50); // the light topic's items are the older: without weights they would all come first
    backlog("heavy", 0, 50);
    q.demand(ALICE, "*", 40);
    List<DeliveredItem> got = q.delivered();
    assertEquals(40, got.size());
    assertEquals(30, count(got, "heavy"), "3:1: " + topics(got));
    for (int i = 0; i < 40; i += 4) {
      assertEquals(3, count(got.subList(i, i + 4), "heavy"), "three of heavy in every four: " + topics(got));
    }
  }

  @Test
  void withoutWeightsTheOrderIsTheReadyOrderAsBefore() {
    backlog("light", 0, 20);
    backlog("heavy", 0, 20);
    q.demand(ALICE, "*", 20);
    assertEquals(20, count(q.delivered(), "light"), "oldest first across topics, no weights");
  }

  @Test
  void singleItemDequeuesShareByWeightToo() {
    weights(Map.of("heavy", 3.0, "light", 1.0));
    backlog("light", 0, 30);
    backlog("heavy", 0, 30);
    List<DeliveredItem> got = new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      q.demand(ALICE, "*", 1);
      got.addAll(q.delivered());
    }
    assertEquals(15, count(got, "heavy"), "the turns outlive one dequeue: " + topics(got));
  }

  @Test
  void aDequeueNamingBothTopicsUnderAFlowLimitSharesThreeToOne() {
    weights(Map.of("heavy", 3.0));
    backlog("light", 0, 50);
    backlog("heavy", 0, 50);
    Map<String, Integer> both = new HashMap<>(Map.of("heavy", 100, "light", 100));
    q.command(ALICE, new Demand("ns", both, 30_000L, true, false, false, 20L, 0L)); // a lease consumer's: 20 in all
    List<DeliveredItem> got = q.delivered();
    assertEquals(20, got.size());
    assertEquals(15, count(got, "heavy"), "3:1 within the limit: " + topics(got));
  }

  @Test
  void aTopicWithoutAWeightHasWeightOne() {
    weights(Map.of("heavy", 2.0));
    backlog("plain", 0, 30);
    backlog("heavy", 0, 30);
    q.demand(ALICE, "*", 30);
    List<DeliveredItem> got = q.delivered();
    assertEquals(20, count(got, "heavy"), "2:1: " + topics(got));
    assertEquals(10, count(got, "plain"));
  }

  @Test
  void aBetterPriorityStillComesFirstWhateverTheWeights() {
    weights(Map.of("heavy", 100.0));
    backlog("heavy", 5, 10);
    backlog("light", 1, 10);
    q.demand(ALICE, "*", 15);
    List<DeliveredItem> got = q.delivered();
    assertEquals(15, got.size());
    for (int i = 0; i < 10; i++) {
      assertEquals("light", got.get(i).getTopic(), "priority 1 before priority 5: " + topics(got));
    }
    assertEquals(5, count(got, "heavy"));
  }

  @Test
  void itemsBecomingReadyTogetherForAWaitingDemandAreSharedByWeight() {
    weights(Map.of("heavy", 3.0, "light", 1.0));
    q.demand(ALICE, Map.of("*", 20), Duration.ofMinutes(1));
    long due = q.now() + 1_000;
    for (int i = 0; i < 30; i++) {
      q.enqueue(item("light", 0).setDeliverAfter(due).build());
    }
    for (int i = 0; i < 30; i++) {
      q.enqueue(item("heavy", 0).setDeliverAfter(due).build());
    }
    assertTrue(q.delivered().isEmpty());
    q.advance(Duration.ofMillis(1_100)); // one timer run makes all sixty ready; dispatch serves the demand
    List<DeliveredItem> got = q.delivered();
    assertEquals(20, got.size());
    assertEquals(15, count(got, "heavy"), "3:1 on the dispatch path: " + topics(got));
  }

  @Test
  void aNamedTopicsOwnCountIsKeptUnderWeights() {
    weights(Map.of("heavy", 3.0));
    backlog("light", 0, 20);
    backlog("heavy", 0, 20);
    q.demand(ALICE, Map.of("light", 4, "heavy", 2), Duration.ofSeconds(30));
    List<DeliveredItem> got = q.delivered();
    assertEquals(4, count(got, "light"), "the counts a dequeue names are what it gets: " + topics(got));
    assertEquals(2, count(got, "heavy"));
  }
}
