package dev.ordo.delay;

/**
 * Counts of one {@link DelayForwarder} since it started; records count once their transaction committed.
 *
 * @param toTier records moved on to another tier (or the same one again)
 * @param toTarget records delivered to their target topic
 * @param deadLettered records sent to the dlq (malformed envelope, invalid target, unwritable record)
 * @param dropped records skipped because even their dead letter could not be written (logged at ERROR)
 * @param committed transactions committed
 * @param aborted transactions aborted (their records were forwarded again afterwards)
 */
public record ForwarderStats(long toTier, long toTarget, long deadLettered, long dropped, long committed,
    long aborted) {}
