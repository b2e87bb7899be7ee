package dev.ordo.topology.internal;

/**
 * When a stream thread may ask for a commit because a requester waits for an answer (decisions D19).
 *
 * <p>Under exactly-once v2 the tasks of a stream thread share one producer and one transaction, so
 * a commit is the thread's, whichever task asked: the pacing belongs to the thread too
 * ({@link #ofCurrentThread}), not to each task (32 partitions on one thread, each asking at its own
 * gap, made the thread commit after every poll). And a commit's cost is not fixed: on a busy or
 * starved machine it grows (the flush waits on the broker, the next transaction on the last one's
 * markers), so a thread that asks at a fixed gap spends ever more of its time committing and less
 * answering, and the dequeues that wait on it run out. The gap is therefore at least as long as the
 * last commit took: at most half the thread's time goes to commits it asked for.
 *
 * <p>A commit's duration is measured from its first task's store flush to the thread's next record
 * or tick, which comes at once on a busy thread. On a quiet one (its tasks take only the coarse tick,
 * {@link Ticks}) the next record may come much later, so a measurement counts as at most twice the
 * last one (and at least {@link #MIN_STEP_MS}): a real slowdown shows within a few commits, an idle
 * pause after a commit does not hold the next waiting requester's commit back.
 *
 * <p>Pure: the caller passes the stream time of the wall clock. Not thread-safe; one per thread.
 */
public final class CommitPacer {
  private static final ThreadLocal<CommitPacer> OF_THREAD = ThreadLocal.withInitial(CommitPacer::new);
  private static final long LONG_AGO = Long.MIN_VALUE / 4;
  /** A measurement counts as at most twice the last, and always as much as this (the old fine tick's bound). */
  static final long MIN_STEP_MS = 20;

  private long askedAt = LONG_AGO;
  private long commitStartedAt = LONG_AGO;
  private long commitEndedAt = LONG_AGO;
  private long lastCommitMs;
  private boolean committing;

  /** The pacer of the calling stream thread. */
  public static CommitPacer ofCurrentThread() {
    return OF_THREAD.get();
  }

  /**
   * Someone waits for an answer sent at {@code now}: true when a commit should be asked for now,
   * which is then counted as asked. Never when {@code gapMs} is negative (asking is off); otherwise
   * when neither the last ask nor the end of the last commit is within the gap, the gap being
   * {@code gapMs} or the last commit's duration, whichever is longer.
   */
  public boolean ask(long now, long gapMs) {
    if (gapMs < 0) {
      return false;
    }
    long gap = Math.max(gapMs, lastCommitMs);
    if (now - askedAt >= gap && now - commitEndedAt >= gap) {
      askedAt = now;
      return true;
    }
    return false;
  }

  /** A commit of this thread began (a task's stores are flushed for it); later tasks of the same commit are ignored. */
  public void commitStarted(long now) {
    if (!committing) {
      committing = true;
      commitStartedAt = now;
    }
  }

  /**
   * The thread processes again: a commit begun before has ended by now. It counts as having taken
   * what was measured, but at most twice the last commit's duration (at least {@link #MIN_STEP_MS}),
   * and as having ended that long after it began.
   */
  public void working(long now) {
    if (committing) {
      committing = false;
      long measured = Math.max(0, now - commitStartedAt);
      lastCommitMs = Math.min(measured, Math.max(2 * lastCommitMs, MIN_STEP_MS));
      commitEndedAt = commitStartedAt + lastCommitMs;
    }
  }

  /** How long the last commit took, as seen from the thread (0 before one ended). */
  public long lastCommitMs() {
    return lastCommitMs;
  }
}
