package dev.ordo.connect.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class PendingSendsTest {
  @Test
  void allAcknowledgedMeansNoFailureAndTheSendsAreForgotten() throws Exception {
    PendingSends pending = new PendingSends();
    pending.add(CompletableFuture.completedFuture("0-1"));
    pending.add(CompletableFuture.completedFuture("0-2"));
    assertNull(pending.awaitAll(1_000));
    assertEquals(0, pending.size());
  }

  @Test
  void oneFailedSendAmongSuccessesIsReportedSoNothingIsCommitted() throws Exception {
    PendingSends pending = new PendingSends();
    IllegalStateException refused = new IllegalStateException("record too large");
    pending.add(CompletableFuture.completedFuture("0-1"));
    pending.add(CompletableFuture.failedFuture(refused));
    pending.add(CompletableFuture.completedFuture("0-3"));
    assertSame(refused, pending.awaitAll(1_000));
    assertEquals(0, pending.size(), "forgotten: the worker rewinds and the records are sent again");
  }

  @Test
  void aSendThatNeverCompletesIsATimeoutNotASuccess() throws Exception {
    PendingSends pending = new PendingSends();
    pending.add(new CompletableFuture<>());
    assertInstanceOf(TimeoutException.class, pending.awaitAll(0));
  }
}
