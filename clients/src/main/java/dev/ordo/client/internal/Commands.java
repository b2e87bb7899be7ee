package dev.ordo.client.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.schema.Command;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Requester;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The records clients write to {@code <cluster>.commands}. An item's command goes to the item's
 * partition, keyed by item ID; a demand to the partition it asks, keyed by requester id.
 */
public final class Commands {
  private Commands() {}

  /**
   * A command on an item. {@code urgent}: the requester waits for the answer (a caller blocked on
   * it), so the queue commits as soon as it answered; a pipelining client (a lease consumer's acks
   * and heartbeats) leaves it false and its answers ride the next regular commit.
   */
  public static ProducerRecord<byte[], byte[]> forItem(ClusterTopics topics, int partition, String itemId,
      Requester requester, long now, Object body, boolean urgent) {
    Command command = new Command(requester, now, body, urgent);
    return new ProducerRecord<>(topics.commands(), partition, itemId.getBytes(StandardCharsets.UTF_8),
        OrdoSerdes.COMMAND.encode(command));
  }

  /**
   * A demand on one partition. {@code replace}: these counts replace the requester's open demand
   * on the partition (empty counts cancel it); otherwise they add to it and extend its validity.
   * {@code urgent} as for {@link #forItem}: a dequeue that a caller waits on sets it, a lease
   * consumer's standing demand does not.
   */
  public static ProducerRecord<byte[], byte[]> demand(ClusterTopics topics, int partition, Requester requester,
      String namespace, Map<String, Integer> counts, long validForMs, boolean replace, long now, boolean urgent) {
    return demand(topics, partition, requester, namespace, counts, validForMs, replace, now, urgent, false);
  }

  /** A demand; {@code answerShort}: the partition says at once when it cannot serve every count (Demand.answerShort). */
  public static ProducerRecord<byte[], byte[]> demand(ClusterTopics topics, int partition, Requester requester,
      String namespace, Map<String, Integer> counts, long validForMs, boolean replace, long now, boolean urgent,
      boolean answerShort) {
    Command command = new Command(requester, now,
        new Demand(namespace, new HashMap<>(counts), Math.max(1, validForMs), replace, answerShort), urgent);
    return new ProducerRecord<>(topics.commands(), partition, requester.getId().getBytes(StandardCharsets.UTF_8),
        OrdoSerdes.COMMAND.encode(command));
  }
}
