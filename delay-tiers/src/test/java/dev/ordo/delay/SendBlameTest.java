package dev.ordo.delay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;

class SendBlameTest {
  private static final TopicPartition TP = new TopicPartition("shop.delay.200ms", 0);

  private static ForwardSend send(long offset, boolean alone, Exception error) {
    ForwardSend send = new ForwardSend(TP, offset, Outgoing.Kind.TARGET, alone);
    send.onCompletion(null, error);
    return send;
  }

  @Test
  void theOnlyRecordThatFailedOnItsOwnIsBlamedAndCountedEachTime() {
    SendBlame blame = new SendBlame("shop.delay.200ms", "shop.dlq");
    assertTrue(blame.blame(List.of(send(1, false, null), send(2, false, new RecordTooLargeException("big")))));
    assertEquals(1, blame.failure(TP, 2).count());
    assertNull(blame.failure(TP, 1));
    assertTrue(blame.blame(List.of(send(2, false, new RecordTooLargeException("big")))));
    assertEquals(2, blame.failure(TP, 2).count());
  }

  @Test
  void severalRecordsWithOneErrorBecomeSuspectsAndASuspectSentAloneIsTheCulprit() {
    SendBlame blame = new SendBlame("shop.delay.200ms", "shop.dlq");
    RecordTooLargeException e = new RecordTooLargeException("big");
    assertTrue(blame.blame(List.of(send(1, false, e), send(2, false, e))));
    assertTrue(blame.isSuspect(TP, 1));
    assertTrue(blame.isSuspect(TP, 2));
    assertTrue(blame.blame(List.of(send(1, true, null), send(2, true, e))));
    assertTrue(blame.isSuspect(TP, 1));
    assertFalse(blame.isSuspect(TP, 2));
    assertEquals(1, blame.failure(TP, 2).count());
  }

  @Test
  void anErrorOfTheClusterBlamesNoRecordAndACommitClearsTheBlame() {
    SendBlame blame = new SendBlame("shop.delay.200ms", "shop.dlq");
    assertFalse(blame.blame(List.of(send(1, false, new NotEnoughReplicasException("isr")))));
    assertNull(blame.failure(TP, 1));
    blame.blame(List.of(send(3, false, new RecordTooLargeException("big"))));
    blame.committed(List.of(send(3, false, null)));
    assertNull(blame.failure(TP, 3));
  }
}
