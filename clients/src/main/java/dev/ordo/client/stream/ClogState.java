package dev.ordo.client.stream;

/**
 * The state of a {@link StreamConsumer}'s clog guard (a circuit breaker on its handler's failures).
 * <ul>
 *   <li>{@link #FLOWING}: records are handled as they come; a failed record is copied through the
 *       delay tiers to the retry topic and the stream goes on.</li>
 *   <li>{@link #CLOGGED}: most records failed lately (a downstream outage, a bad deploy). Every
 *       partition is paused at its first unfinished record; failures are not copied to the tiers
 *       (that would move the whole stream there); the consumer waits out the probe backoff.</li>
 *   <li>{@link #PROBING}: the backoff passed; the consumer runs one record. Success: FLOWING again.
 *       Failure: that record is retried through the tiers like any failure, and CLOGGED for a longer
 *       backoff.</li>
 * </ul>
 */
public enum ClogState {
  FLOWING,
  CLOGGED,
  PROBING
}
