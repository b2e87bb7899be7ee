package dev.ordo.delay.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PauseScheduleTest {
  @Test
  void pollTimeoutNeverRunsPastTheNextResumeTime() {
    PauseSchedule<String> pauses = new PauseSchedule<>();
    assertEquals(1000, pauses.pollTimeout(0, 1000));
    pauses.pause("a", 300);
    pauses.pause("b", 120);
    assertEquals(120, pauses.pollTimeout(0, 1000));
    assertEquals(20, pauses.pollTimeout(100, 1000));
    assertEquals(0, pauses.pollTimeout(150, 1000));
    assertEquals(50, pauses.pollTimeout(0, 50));
  }

  @Test
  void dueReturnsAndForgetsOnlyPartitionsWhoseTimeHasCome() {
    PauseSchedule<String> pauses = new PauseSchedule<>();
    pauses.pause("a", 300);
    pauses.pause("b", 120);
    assertEquals(List.of(), pauses.due(119));
    assertEquals(List.of("b"), pauses.due(120));
    assertFalse(pauses.isPaused("b"));
    assertTrue(pauses.isPaused("a"));
    assertEquals(180, pauses.pollTimeout(120, 1000));
  }

  @Test
  void forgottenPartitionsNoLongerBoundThePoll() {
    PauseSchedule<String> pauses = new PauseSchedule<>();
    pauses.pause("a", 10);
    pauses.forget(List.of("a"));
    assertEquals(1000, pauses.pollTimeout(0, 1000));
    assertEquals(List.of(), pauses.due(50));
  }

  @Test
  void pausingAgainReplacesTheResumeTime() {
    PauseSchedule<String> pauses = new PauseSchedule<>();
    pauses.pause("a", 10);
    pauses.pause("a", 500);
    assertEquals(List.of(), pauses.due(100));
    assertEquals(500L, pauses.resumeTime("a"));
  }
}
