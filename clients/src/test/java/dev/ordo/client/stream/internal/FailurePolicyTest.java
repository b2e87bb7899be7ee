package dev.ordo.client.stream.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.client.DeadLetterNow;
import dev.ordo.client.RetryLater;
import dev.ordo.client.internal.Backoff;
import dev.ordo.schema.DeadLetterReason;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FailurePolicyTest {
  private final FailurePolicy policy = new FailurePolicy(4, new Backoff(100, 1_000, 0.0));

  @Test
  void failuresComeBackWithExponentialBackoffUntilTheLastAttempt() {
    RuntimeException boom = new IllegalStateException("boom");
    assertEquals(new FailurePolicy.Retry(2, 100), policy.onFailure(boom, 1, 0.5));
    assertEquals(new FailurePolicy.Retry(3, 200), policy.onFailure(boom, 2, 0.5));
    assertEquals(new FailurePolicy.Retry(4, 400), policy.onFailure(boom, 3, 0.5));
    FailurePolicy.GiveUp last = (FailurePolicy.GiveUp) policy.onFailure(boom, 4, 0.5);
    assertEquals(DeadLetterReason.MAX_ATTEMPTS, last.reason());
    assertTrue(last.detail().contains("4 of 4"), last.detail());
  }

  @Test
  void theHandlerMayNameTheDelayOrRejectTheRecord() {
    assertEquals(new FailurePolicy.Retry(2, 7_000), policy.onFailure(new RetryLater(Duration.ofSeconds(7)), 1, 0.5));
    assertEquals(DeadLetterReason.MAX_ATTEMPTS,
        ((FailurePolicy.GiveUp) policy.onFailure(new RetryLater(Duration.ofSeconds(7)), 4, 0.5)).reason());
    assertEquals(DeadLetterReason.REJECTED,
        ((FailurePolicy.GiveUp) policy.onFailure(new DeadLetterNow("malformed"), 1, 0.5)).reason());
  }

  @Test
  void errorsAreDescribedByClassAndMessageAndCut() {
    assertEquals("java.lang.IllegalStateException: boom", FailurePolicy.describe(new IllegalStateException("boom")));
    assertEquals("java.lang.NullPointerException", FailurePolicy.describe(new NullPointerException()));
    assertEquals("malformed", FailurePolicy.describe(new DeadLetterNow("malformed")));
    assertEquals(1_000, FailurePolicy.describe(new RuntimeException("x".repeat(5_000))).length());
  }
}
