package dev.ordo.server.http;

import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.NackOptions;
import dev.ordo.client.QueueClient;
import dev.ordo.server.http.internal.HttpConsumerMeters;
import dev.ordo.server.http.internal.JsonBody;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The commands on one item (ack, nack, extend, release, cancel) from their fields, for a single
 * request ({@link QueueApi}) or a batch entry ({@link BatchApi}), and what an answered one tells the
 * HTTP consumers' meters.
 */
final class ItemCommands {
  private ItemCommands() {}

  /**
   * A command on one item, from its fields (a single request's body or a batch entry): every field
   * checked when called (an IllegalArgumentException names a bad one), the command sent when the
   * returned supplier is called.
   */
  @FunctionalInterface
  interface ItemCommand {
    Supplier<CompletableFuture<CommandOutcome>> check(QueueClient.Scoped client, ItemId id, JsonBody fields);
  }

  static final ItemCommand ACK = (client, id, b) -> {
    String lease = lease(b);
    return () -> client.ack(id, lease);
  };

  static final ItemCommand NACK = (client, id, b) -> {
    String lease = lease(b);
    Long delay = b.millis("delayMs", 0);
    byte[] metadata = ItemFields.bytes(b, "metadata", false);
    Boolean deadLetter = b.bool("deadLetter");
    NackOptions options = new NackOptions(Duration.ofMillis(delay == null ? 0 : delay), metadata, b.string("error"),
        deadLetter != null && deadLetter);
    return () -> client.nack(id, lease, options);
  };

  static final ItemCommand EXTEND = (client, id, b) -> {
    String lease = lease(b);
    Long leaseMs = b.millis("leaseMs", 1);
    if (leaseMs == null) {
      throw new IllegalArgumentException("leaseMs is missing: how long the lease should last from now");
    }
    return () -> client.extend(id, lease, Duration.ofMillis(leaseMs));
  };

  static final ItemCommand RELEASE = (client, id, b) -> {
    String lease = lease(b);
    return () -> client.release(id, lease);
  };

  static final ItemCommand CANCEL = (client, id, b) -> () -> client.cancel(id);

  /**
   * {@code command}, telling {@code consumers} (when not null) what the queue answered: an extend it
   * applied moves the item's lease end; any other command it answered (applied, stale lease, unknown
   * item) means the caller no longer holds the item on that lease (decisions D58). A command refused
   * for its namespace, or not answered, changes nothing.
   */
  static ItemCommand observed(ItemCommand command, HttpConsumerMeters consumers) {
    if (consumers == null) {
      return command;
    }
    return (client, id, b) -> {
      Supplier<CompletableFuture<CommandOutcome>> send = command.check(client, id, b);
      String lease = b.string("lease");
      boolean extend = command == EXTEND;
      return () -> {
        CompletableFuture<CommandOutcome> sent = send.get();
        sent.thenAccept(o -> observe(consumers, id.toString(), lease, extend, o));
        return sent;
      };
    };
  }

  /** Tells {@code consumers} what an answered command means for the item's holder (see {@link #observed}). */
  static void observe(HttpConsumerMeters consumers, String itemId, String lease, boolean extend, CommandOutcome o) {
    if (o == null || o.forbiddenNamespace() != null || o.result() == CommandOutcome.Result.INVALID) {
      return;
    }
    if (!extend) {
      consumers.settled(itemId, lease);
    } else if (o.result() != CommandOutcome.Result.APPLIED) {
      consumers.settled(itemId, lease);
    } else if (o.leaseExpiresAt() != null) {
      consumers.extended(itemId, lease, o.leaseExpiresAt().toEpochMilli());
    }
  }

  /** The lease a command on a leased item names; missing or empty is a bad field. */
  static String lease(JsonBody b) {
    String lease = b.string("lease");
    if (lease == null || lease.isEmpty()) {
      throw new IllegalArgumentException("lease is missing: the lease id the item was dequeued with");
    }
    return lease;
  }
}
