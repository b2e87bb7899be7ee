package dev.ordo.client.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.CommandOrder;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Acks;
import dev.ordo.schema.Command;
import dev.ordo.schema.Demand;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Release;
import dev.ordo.schema.Requester;
import dev.ordo.serde.OrdoSerdes;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The records clients write to {@code <cluster>.commands}. An item's command goes to the item's
 * partition, keyed by item ID; a demand to the partition it asks, keyed by requester id. A command
 * that cannot need an item the queue has yet to take in carries {@link CommandOrder#HEADER}, so that
 * it is not held behind a lagging intake (decisions D46): an ack, a nack, an extension or a release (it names
 * a leased item), and a lease consumer's standing demand. The demand must come along: a partition's
 * records are taken in their order, so a demand still held behind new items would hold every ack
 * written after it on the same partition. A dequeue that a caller waits on (urgent, or answered short)
 * keeps the intake's order, so that it finds an item enqueued just before it.
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
    return forItem(topics, partition, itemId, requester, now, body, urgent, null);
  }

  /**
   * A command on an item that applies only if the item's namespace is one {@code scope}'s patterns
   * match (Command.namespaces; {@link dev.ordo.api.NamespacePattern}); null: any namespace.
   */
  public static ProducerRecord<byte[], byte[]> forItem(ClusterTopics topics, int partition, String itemId,
      Requester requester, long now, Object body, boolean urgent, java.util.List<String> scope) {
    Command command = new Command(requester, now, body, urgent, scope);
    return new ProducerRecord<>(topics.commands(), partition, null, itemId.getBytes(StandardCharsets.UTF_8),
        OrdoSerdes.COMMAND.encode(command), order(namesLeasedItem(body)));
  }

  /** An ack, a nack, an extension or a release: a command on an item the queue leased, so took in before. */
  static boolean namesLeasedItem(Object body) {
    return body instanceof Ack || body instanceof Acks || body instanceof Nack || body instanceof Extend
        || body instanceof Release;
  }

  private static RecordHeaders order(boolean first) {
    RecordHeaders headers = new RecordHeaders();
    if (first) {
      headers.add(CommandOrder.HEADER, CommandOrder.first());
    }
    return headers;
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
    return demand(topics, partition, requester, namespace, counts, validForMs, replace, now, urgent, answerShort, false);
  }

  /**
   * A demand; {@code once}: served by this record alone, nothing kept open, and answered with what it
   * was granted when that is less than asked (Demand.once).
   */
  public static ProducerRecord<byte[], byte[]> demand(ClusterTopics topics, int partition, Requester requester,
      String namespace, Map<String, Integer> counts, long validForMs, boolean replace, long now, boolean urgent,
      boolean answerShort, boolean once) {
    Demand demand = new Demand(namespace, new HashMap<>(counts), Math.max(1, validForMs), replace, answerShort, once,
        -1L, 0L);
    return record(topics, partition, requester, new Command(requester, now, demand, urgent, null), !urgent && !answerShort);
  }

  /**
   * A lease consumer's standing demand under flow control (Demand.limit): the partition grants it at
   * most {@code limit} items in all, {@code received} being what it has had from the partition so far.
   */
  public static ProducerRecord<byte[], byte[]> flowDemand(ClusterTopics topics, int partition, Requester requester,
      String namespace, Map<String, Integer> counts, long validForMs, long limit, long received, long now) {
    Demand demand = new Demand(namespace, new HashMap<>(counts), Math.max(1, validForMs), true, false, false,
        limit, received);
    return record(topics, partition, requester, new Command(requester, now, demand, false, null), true);
  }

  private static ProducerRecord<byte[], byte[]> record(ClusterTopics topics, int partition, Requester requester,
      Command command, boolean first) {
    return new ProducerRecord<>(topics.commands(), partition, null, requester.getId().getBytes(StandardCharsets.UTF_8),
        OrdoSerdes.COMMAND.encode(command), order(first));
  }
}
