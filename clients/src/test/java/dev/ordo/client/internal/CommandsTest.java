package dev.ordo.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.CommandOrder;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Acks;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/** Which commands need not wait for a lagging intake (decisions D46): those that cannot need an item not yet taken in. */
class CommandsTest {
  private static final ClusterTopics TOPICS = new ClusterTopics("c");
  private static final Requester REQUESTER = new Requester("r/1/c1", 0);
  private static final String ID = "0-7";

  @Test
  void commandsOnALeasedItemCarryTheHeader() {
    for (Object body : List.of(new Ack(ID, "l"), new Acks(List.of(new Ack(ID, "l"))),
        Nack.newBuilder().setItemId(ID).setLeaseId("l").build(), new Extend(ID, "l", 1_000L), new Release(ID, "l", null))) {
      assertFirst(Commands.forItem(TOPICS, 0, ID, REQUESTER, 1L, body, false), body.getClass().getSimpleName());
      assertFirst(Commands.forItem(TOPICS, 0, ID, REQUESTER, 1L, body, true), body.getClass().getSimpleName() + ", urgent");
    }
  }

  @Test
  void aCancelKeepsTheIntakeOrderForItMayNameAnItemJustEnqueued() {
    assertNull(Commands.forItem(TOPICS, 0, ID, REQUESTER, 1L, new Cancel(ID), true).headers()
        .lastHeader(CommandOrder.HEADER));
  }

  @Test
  void aStandingDemandCarriesTheHeaderADequeueDoesNot() {
    // A standing demand held behind new items would hold the acks after it on its partition too.
    assertFirst(Commands.demand(TOPICS, 0, REQUESTER, "ns", Map.of("t", 5), 3_000, true, 1L, false), "standing");
    assertNull(Commands.demand(TOPICS, 0, REQUESTER, "ns", Map.of("t", 5), 3_000, true, 1L, true).headers()
        .lastHeader(CommandOrder.HEADER), "a dequeue a caller waits on");
    assertNull(Commands.demand(TOPICS, 0, REQUESTER, "ns", Map.of("t", 5), 3_000, true, 1L, false, true).headers()
        .lastHeader(CommandOrder.HEADER), "a demand answered short");
  }

  private static void assertFirst(ProducerRecord<byte[], byte[]> record, String what) {
    Header h = record.headers().lastHeader(CommandOrder.HEADER);
    assertArrayEquals(CommandOrder.first(), h == null ? null : h.value(), what + " carries the header");
    assertEquals(TOPICS.commands(), record.topic());
  }
}
