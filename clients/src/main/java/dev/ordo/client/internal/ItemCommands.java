package dev.ordo.client.internal;

import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.NackOptions;
import dev.ordo.schema.Ack;
import dev.ordo.schema.Cancel;
import dev.ordo.schema.CommandKind;
import dev.ordo.schema.Extend;
import dev.ordo.schema.Nack;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.Release;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The commands on one item a {@link dev.ordo.client.QueueClient} sends (ack, nack, extend, release,
 * cancel): each argument checked (an {@link IllegalArgumentException} naming the bad one, nothing
 * sent), the command's body built, and the command sent as a request that waits for its outcome
 * ({@link PendingRequests}). {@code scope}: the namespace patterns it applies within
 * (Command.namespaces), or null for any namespace.
 */
public final class ItemCommands {
  private final PendingRequests requests;

  public ItemCommands(PendingRequests requests) {
    this.requests = requests;
  }

  /** Deletes the item if {@code leaseId} is its current lease. */
  public CompletableFuture<CommandOutcome> ack(ItemId id, String leaseId, List<String> scope) {
    checkLease(id, leaseId);
    return answer(requests.request(id, CommandKind.ACK, new Ack(id.toString(), leaseId), false, scope));
  }

  /** Gives the item back as failed, as {@code options} say. */
  public CompletableFuture<CommandOutcome> nack(ItemId id, String leaseId, NackOptions options, List<String> scope) {
    return answer(requests.request(id, CommandKind.NACK, nackBody(id, leaseId, options), false, scope));
  }

  /**
   * A {@link dev.ordo.client.LeaseConsumer}'s nack: nobody waits on its answer, so it does not ask
   * the queue to commit at once (decisions D19), and completes with others of the same poll.
   */
  public CompletableFuture<Outcome> nackBatched(ItemId id, String leaseId, NackOptions options) {
    return requests.request(id, CommandKind.NACK, nackBody(id, leaseId, options), true, null);
  }

  /** Heartbeat: the lease ends {@code lease} from when the queue applies it. */
  public CompletableFuture<CommandOutcome> extend(ItemId id, String leaseId, Duration lease, List<String> scope) {
    return answer(requests.request(id, CommandKind.EXTEND, extendBody(id, leaseId, lease), false, scope));
  }

  /** A {@link dev.ordo.client.LeaseConsumer}'s own heartbeat: completed with others of the same poll. */
  public CompletableFuture<Outcome> extendBatched(ItemId id, String leaseId, Duration lease) {
    return requests.request(id, CommandKind.EXTEND, extendBody(id, leaseId, lease), true, null);
  }

  /** Gives the item back unused. */
  public CompletableFuture<CommandOutcome> release(ItemId id, String leaseId, List<String> scope) {
    checkLease(id, leaseId);
    return answer(requests.request(id, CommandKind.RELEASE, new Release(id.toString(), leaseId, null), false, scope));
  }

  /** Deletes the item in whatever state. */
  public CompletableFuture<CommandOutcome> cancel(ItemId id, List<String> scope) {
    if (id == null) {
      throw new IllegalArgumentException("item ID is missing");
    }
    return answer(requests.request(id, CommandKind.CANCEL, new Cancel(id.toString()), false, scope));
  }

  /**
   * The scope of commands limited to the namespaces {@code patterns} match ({@link
   * dev.ordo.api.NamespacePattern}), checked; null (any namespace) for null.
   *
   * @throws IllegalArgumentException naming the first bad pattern
   */
  public static List<String> scope(java.util.Collection<String> patterns) {
    if (patterns == null) {
      return null;
    }
    for (String p : patterns) {
      String problem = dev.ordo.api.NamespacePattern.problem(p);
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
    }
    return List.copyOf(patterns);
  }

  /** The caller's view of an outcome to come. */
  static CompletableFuture<CommandOutcome> answer(CompletableFuture<Outcome> outcome) {
    return outcome.thenApply(PublicTypes::outcome);
  }

  static void checkLease(ItemId id, String leaseId) {
    if (id == null) {
      throw new IllegalArgumentException("item ID is missing");
    }
    if (leaseId == null || leaseId.isEmpty()) {
      throw new IllegalArgumentException("lease is missing");
    }
  }

  static Nack nackBody(ItemId id, String leaseId, NackOptions options) {
    checkLease(id, leaseId);
    if (options == null) {
      throw new IllegalArgumentException("nack options are missing");
    }
    return new Nack(id.toString(), leaseId, options.delay().toMillis(),
        options.metadata() == null ? null : ByteBuffer.wrap(options.metadata()), options.error(), options.deadLetter());
  }

  static Extend extendBody(ItemId id, String leaseId, Duration lease) {
    checkLease(id, leaseId);
    if (lease == null || lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, got " + lease);
    }
    return new Extend(id.toString(), leaseId, lease.toMillis());
  }
}
