package dev.ordo.topology;

import static dev.ordo.topology.QueueDriver.ALICE;
import static dev.ordo.topology.QueueDriver.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.Dedup;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.Enqueued;
import dev.ordo.schema.Item;
import dev.ordo.schema.NamespacePolicy;
import dev.ordo.topology.internal.DedupWindow;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Deduplication IDs in the queue (decisions D57), through the whole topology. */
class DedupTopologyTest {
  private QueueDriver q = new QueueDriver();

  @AfterEach
  void close() {
    q.close();
  }

  /** The record headers of an item with a deduplication ID, answered to ALICE. */
  private static RecordHeaders dedup(String id) {
    RecordHeaders h = new RecordHeaders();
    h.add(Dedup.HEADER, id.getBytes(StandardCharsets.UTF_8));
    h.add(Dedup.REPLY_HEADER, Dedup.replyTo(ALICE.getReplyPartition(), ALICE.getId()));
    return h;
  }

  /** The items of {@code topic} the queue holds, leased to ALICE. */
  private List<DeliveredItem> drain(String topic) {
    q.demand(ALICE, Map.of(topic, 100), Duration.ofMinutes(5));
    return q.delivered();
  }

  @Test
  void aDuplicateWithinTheWindowIsNotTakenInAndIsAnsweredWithTheFirstItemsId() {
    String first = q.enqueue(item("t", 0).build(), dedup("order-1"));
    q.advance(Duration.ofSeconds(60));
    String second = q.enqueue(item("t", 0).build(), dedup("order-1"));

    List<Enqueued> answers = q.enqueueAnswers();
    assertEquals(2, answers.size(), answers::toString);
    assertEquals(new Enqueued(first, first, false), answers.get(0));
    assertEquals(new Enqueued(second, first, true), answers.get(1), "the duplicate names the first item");
    List<DeliveredItem> items = drain("t");
    assertEquals(List.of(first), items.stream().map(DeliveredItem::getItemId).toList(), "one item taken in");
    assertEquals(1, q.metrics.get(QueueMetrics.DEDUP_DUPLICATE));
    assertEquals(0, q.deadLetters().size(), "a duplicate is not an error");
    assertEquals(1.0, q.registry.get("ordo.items.duplicate").tag("namespace", "ns").tag("topic", "t").counter().count());
    assertEquals(1.0, q.registry.get("ordo.dedup.entries").gauge().value(), "one ID held");
  }

  @Test
  void afterTheWindowTheSameIdIsTakenInAgainAndItsEntryIsForgotten() {
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0).setDedupWindowMs(2_000L).build());
    q.advance(Duration.ofMillis(200)); // past the policy reader's recheck
    String first = q.enqueue(item("t", 0).build(), dedup("x"));
    q.advance(Duration.ofMillis(1_990));
    q.enqueue(item("t", 0).build(), dedup("x"));
    q.advance(Duration.ofMillis(1_100)); // the window ended; a coarse tick forgets the ID
    assertEquals(1, q.metrics.get(QueueMetrics.DEDUP_EXPIRED), "forgotten by the timer");
    assertEquals(0.0, q.registry.get("ordo.dedup.entries").gauge().value());
    String third = q.enqueue(item("t", 0).build(), dedup("x"));

    List<Enqueued> answers = q.enqueueAnswers();
    assertEquals(List.of(false, true, false), answers.stream().map(Enqueued::getDuplicate).toList());
    assertEquals(third, answers.get(2).getItemId());
    assertEquals(List.of(first, third), drain("t").stream().map(DeliveredItem::getItemId).toList());
  }

  @Test
  void theScopeIsNamespaceTopicAndGroupKey() {
    q.enqueue(item("t", 0).build(), dedup("same"));
    q.enqueue(item("u", 0).build(), dedup("same"));
    q.enqueue(item("t", 0).setNamespace("other").build(), dedup("same"));
    q.enqueue(item("t", 0).setGroupKey("g1").build(), dedup("same"));
    q.enqueue(item("t", 0).setGroupKey("g1").build(), dedup("same")); // the only duplicate
    q.enqueue(item("t", 0).build(), dedup("other-id"));

    assertEquals(List.of(false, false, false, false, true, false),
        q.enqueueAnswers().stream().map(Enqueued::getDuplicate).toList());
    assertEquals(1, q.metrics.get(QueueMetrics.DEDUP_DUPLICATE));
    assertEquals(3, drain("t").size(), "t of ns: no group, group g1, other-id");
  }

  @Test
  void aWindowOfZeroTurnsDeduplicationOffAndItemsWithoutAnIdAreNeverDuplicates() {
    q.enqueue(item("t", 0).build());
    q.enqueue(item("t", 0).build());
    q.policy("ns", NamespacePolicy.newBuilder().setNamespace("ns").setUpdatedAt(0).setDedupWindowMs(0L).build());
    q.advance(Duration.ofMillis(200)); // past the policy reader's recheck
    q.enqueue(item("t", 0).build(), dedup("a"));
    q.enqueue(item("t", 0).build(), dedup("a"));
    assertEquals(4, drain("t").size());
    assertEquals(List.of(false, false), q.enqueueAnswers().stream().map(Enqueued::getDuplicate).toList(),
        "answered, as taken in");
    assertEquals(0, q.metrics.get(QueueMetrics.DEDUP_DUPLICATE));
  }

  @Test
  void itemsWithoutAnIdLeaveTheWindowUntouchedAndAreNotAnswered() {
    RecordHeaders traced = new RecordHeaders();
    traced.add("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".getBytes(StandardCharsets.UTF_8));
    q.enqueue(item("t", 0).build());
    q.enqueue(item("t", 0).build(), traced);
    assertTrue(q.changelog(DedupWindow.STORE).isEmpty(), "no write to the window");
    assertTrue(q.enqueueAnswers().isEmpty(), "nobody asked");
    assertEquals(2, drain("t").size());
  }

  @Test
  void anIdTheHeaderCannotHoldIsIgnoredAndTheItemTakenIn() {
    String tooLong = "x".repeat(Dedup.MAX_LENGTH + 1);
    q.enqueue(item("t", 0).build(), dedup(tooLong));
    q.enqueue(item("t", 0).build(), dedup(tooLong));
    assertEquals(2, drain("t").size());
    assertEquals(0, q.deadLetters().size());
  }

  @Test
  void theWindowIsInItsChangelogAndARestoredStoreStillRefusesTheDuplicate() {
    Item order = item("t", 0).build();
    String first = q.enqueue(order, dedup("order-7"));
    List<KeyValue<byte[], byte[]>> changelog = q.changelog(DedupWindow.STORE);
    assertFalse(changelog.isEmpty(), "the window's writes go to its changelog");
    q.close();

    // Another instance takes the task: Kafka Streams restores the store by putting the changelog's
    // records back, which is what this does before the task processes anything.
    q = new QueueDriver();
    KeyValueStore<Bytes, byte[]> store = q.driver.getKeyValueStore(DedupWindow.STORE);
    for (KeyValue<byte[], byte[]> r : changelog) {
      if (r.value == null) {
        store.delete(Bytes.wrap(r.key));
      } else {
        store.put(Bytes.wrap(r.key), r.value);
      }
    }
    q.enqueue(item("t", 0).build()); // another item first: the duplicate's offset differs from the first's
    String again = q.enqueue(order, dedup("order-7"));

    List<Enqueued> answers = q.enqueueAnswers();
    assertEquals(1, answers.size(), "only the item that asked is answered");
    Enqueued answer = answers.get(0);
    assertTrue(answer.getDuplicate(), answer::toString);
    assertEquals(first, answer.getItemId(), "the first item's ID, from before the restart");
    assertEquals(again, answer.getRecordId());
    assertEquals(1, drain("t").size(), "only the other item");
  }

  @Test
  void atTheCapTheIdsWhoseWindowEndsFirstAreForgottenAndCounted() {
    q.close();
    q = new QueueDriver(Map.of(QueueConfig.DEDUP_MAX_ENTRIES_CONFIG, 2L));
    q.enqueue(item("t", 0).build(), dedup("a"));
    q.advance(Duration.ofMillis(10));
    q.enqueue(item("t", 0).build(), dedup("b"));
    q.advance(Duration.ofMillis(10));
    q.enqueue(item("t", 0).build(), dedup("c")); // evicts a
    assertEquals(1, q.metrics.get(QueueMetrics.DEDUP_EVICTED));
    assertEquals(2.0, q.registry.get("ordo.dedup.entries").gauge().value(), "never over the cap");
    q.enqueue(item("t", 0).build(), dedup("a")); // taken in again: never lost, maybe twice
    q.enqueue(item("t", 0).build(), dedup("c")); // still a duplicate
    assertEquals(List.of(false, false, false, false, true),
        q.enqueueAnswers().stream().map(Enqueued::getDuplicate).toList());
  }
}
