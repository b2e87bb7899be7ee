package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A stream thread asks for commits for waiting requesters at most once per gap, and the gap grows with the commit's cost. */
class CommitPacerTest {
  private static final long T0 = 1_000_000L;

  @Test
  void asksAtMostOncePerGapWhicheverTaskAsks() {
    CommitPacer pacer = new CommitPacer();
    assertTrue(pacer.ask(T0, 5), "the first answer asks");
    assertFalse(pacer.ask(T0 + 4, 5), "another task of the thread, 4 ms later: the asked commit covers it");
    assertTrue(pacer.ask(T0 + 5, 5), "the gap passed");
  }

  @Test
  void aNegativeGapNeverAsks() {
    CommitPacer pacer = new CommitPacer();
    assertFalse(pacer.ask(T0, -1));
    assertFalse(pacer.ask(T0 + 1_000_000, -1));
  }

  @Test
  void noAskWithinTheGapAfterACommitEnded() {
    CommitPacer pacer = new CommitPacer();
    pacer.commitStarted(T0); // a regular commit, nobody asked
    pacer.working(T0 + 1);
    assertFalse(pacer.ask(T0 + 3, 5), "2 ms after a commit ended: the next transaction would meet its markers");
    assertTrue(pacer.ask(T0 + 6, 5));
  }

  @Test
  void theGapStretchesToTheLastCommitsDuration() {
    CommitPacer pacer = new CommitPacer();
    assertTrue(pacer.ask(T0, 5));
    pacer.commitStarted(T0 + 1);
    pacer.commitStarted(T0 + 2); // the next task's stores, same commit
    pacer.working(T0 + 16);
    assertEquals(15, pacer.lastCommitMs(), "from the first task's flush to the thread working again");
    assertFalse(pacer.ask(T0 + 20, 5), "4 ms after a 15 ms commit: at most half the thread's time in asked commits");
    assertFalse(pacer.ask(T0 + 30, 5));
    assertTrue(pacer.ask(T0 + 31, 5), "15 ms after the commit ended");

    pacer.commitStarted(T0 + 32);
    pacer.working(T0 + 34);
    assertEquals(2, pacer.lastCommitMs());
    assertTrue(pacer.ask(T0 + 39, 5), "commits are cheap again: back to the configured gap");
  }

  @Test
  void aSlowerCommitCountsAtMostTwiceTheLastSoAQuietPauseAfterACommitIsNotTakenForIt() {
    CommitPacer pacer = new CommitPacer();
    pacer.commitStarted(T0);
    pacer.working(T0 + 10);
    assertEquals(10, pacer.lastCommitMs());

    // The thread went quiet after the next commit; its next record came 500 ms later.
    pacer.commitStarted(T0 + 100);
    pacer.working(T0 + 600);
    assertEquals(20, pacer.lastCommitMs(), "twice the last, not the pause");
    assertTrue(pacer.ask(T0 + 600, 5), "the requester after the pause gets its commit at once");

    // Commits that really grew are followed within a few: 20, 40, 80, then the 120 measured.
    long at = T0 + 1_000;
    for (long expected : new long[] {40, 80, 120, 120}) {
      pacer.commitStarted(at);
      pacer.working(at + 120);
      assertEquals(expected, pacer.lastCommitMs());
      at += 1_000;
    }
  }

  @Test
  void theFirstCommitsCountAtLeastTheMinimumStep() {
    CommitPacer pacer = new CommitPacer();
    pacer.commitStarted(T0);
    pacer.working(T0 + 300);
    assertEquals(CommitPacer.MIN_STEP_MS, pacer.lastCommitMs(), "nothing known yet: the minimum step");
  }

  @Test
  void workingWithoutACommitChangesNothing() {
    CommitPacer pacer = new CommitPacer();
    pacer.working(T0);
    pacer.working(T0 + 100);
    assertEquals(0, pacer.lastCommitMs());
    assertTrue(pacer.ask(T0 + 100, 5));
  }

  @Test
  void eachThreadHasItsOwn() throws Exception {
    CommitPacer mine = CommitPacer.ofCurrentThread();
    CommitPacer[] other = new CommitPacer[1];
    Thread t = new Thread(() -> other[0] = CommitPacer.ofCurrentThread());
    t.start();
    t.join();
    assertTrue(mine == CommitPacer.ofCurrentThread(), "one per thread, the same on every call");
    assertFalse(mine == other[0], "another thread's commits are another transaction");
  }
}
