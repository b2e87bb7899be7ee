package dev.ordo.client;

/**
 * What happens to an item whose lease runs out: redelivered ({@link #AT_LEAST_ONCE}, the default) or
 * deleted, so that it is never delivered twice ({@link #AT_MOST_ONCE}).
 */
public enum Semantics {
  /** A lease that runs out makes the item ready again: it may be delivered more than once. */
  AT_LEAST_ONCE,
  /** A lease that runs out deletes the item: it is never delivered twice, and may be lost. */
  AT_MOST_ONCE
}
