package dev.ordo.topology.internal;

/**
 * An item or command the queue refuses, and why (naming the field): thrown by {@link Validation}
 * before anything is changed, turned by {@link QueuePlanner} into a refusal (a dead letter and, for
 * a command whose requester can be reached, an INVALID outcome). Not a bug: no stack trace is kept.
 */
public final class InvalidInput extends RuntimeException {
  public InvalidInput(String reason) {
    super(reason, null, false, false);
  }
}
