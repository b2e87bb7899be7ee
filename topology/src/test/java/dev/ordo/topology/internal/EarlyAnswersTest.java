package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.CommandKind;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliveredItems;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.OutcomeResult;
import dev.ordo.schema.Outcomes;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which answers may go before the commit (decisions D39). */
class EarlyAnswersTest {

  @Test
  void onlyAnswersSomeoneWaitsForGoEarly() {
    assertTrue(EarlyAnswers.allows(true, outcome()));
    assertFalse(EarlyAnswers.allows(false, outcome()), "a lease consumer's outcomes ride the commit");
    assertFalse(EarlyAnswers.allows(false, item("0-1", DeliverySemantics.AT_LEAST_ONCE)));
  }

  @Test
  void anAnswerHandingOutAnyAtMostOnceItemWaitsForTheCommit() {
    assertTrue(EarlyAnswers.allows(true, item("0-1", DeliverySemantics.AT_LEAST_ONCE)));
    assertFalse(EarlyAnswers.allows(true, item("0-1", DeliverySemantics.AT_MOST_ONCE)));
    assertTrue(EarlyAnswers.allows(true, new DeliveredItems(List.of(
        item("0-1", DeliverySemantics.AT_LEAST_ONCE), item("0-2", DeliverySemantics.AT_LEAST_ONCE)))));
    assertFalse(EarlyAnswers.allows(true, new DeliveredItems(List.of(
        item("0-1", DeliverySemantics.AT_LEAST_ONCE), item("0-2", DeliverySemantics.AT_MOST_ONCE)))),
        "one at-most-once item holds the whole record back");
  }

  @Test
  void aRefusalOnTheTasksStateWaitsForTheCommit() {
    // A zombie owner's early refusal would race the new owner's answer (decisions D68).
    assertFalse(EarlyAnswers.allows(true, outcome(OutcomeResult.STALE_LEASE)));
    assertFalse(EarlyAnswers.allows(true, outcome(OutcomeResult.UNKNOWN_ITEM)));
    assertTrue(EarlyAnswers.allows(true, outcome(OutcomeResult.INVALID)), "a malformed command is refused on any state");
    assertTrue(EarlyAnswers.allows(true, new Outcomes(List.of(outcome(), outcome()))));
    assertFalse(EarlyAnswers.allows(true, new Outcomes(List.of(outcome(), outcome(OutcomeResult.STALE_LEASE)))),
        "one refusal holds the whole record back");
  }

  private static Outcome outcome() {
    return outcome(OutcomeResult.APPLIED);
  }

  private static Outcome outcome(OutcomeResult result) {
    return Outcome.newBuilder().setItemId("0-1").setCommand(CommandKind.ACK).setResult(result).build();
  }

  private static DeliveredItem item(String id, DeliverySemantics semantics) {
    return DeliveredItem.newBuilder().setItemId(id).setLeaseId("a1-x").setNamespace("ns").setTopic("t")
        .setPriority(0).setAttempt(1).setPayload(ByteBuffer.wrap(new byte[] {1})).setEnqueuedAt(0L)
        .setLeaseExpiresAt(1L).setSemantics(semantics).build();
  }
}
