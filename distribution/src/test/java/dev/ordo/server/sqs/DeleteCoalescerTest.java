package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Deletes of concurrent requests sharing ack commands, against an acker the test answers. */
class DeleteCoalescerTest {
  /** The commands sent: their scope, acks and the futures the test completes. */
  private record Sent(List<String> scope, List<Map.Entry<ItemId, String>> acks,
      List<CompletableFuture<CommandOutcome>> futures) {}

  private final List<Sent> sent = new ArrayList<>();

  private final DeleteCoalescer.Acker acker = (scope, acks) -> {
    List<CompletableFuture<CommandOutcome>> futures = new ArrayList<>();
    acks.forEach(a -> futures.add(new CompletableFuture<>()));
    synchronized (sent) {
      sent.add(new Sent(scope, List.copyOf(acks), futures));
    }
    return futures;
  };

  private static Map.Entry<ItemId, String> ack(int partition, long offset) {
    return Map.entry(new ItemId(partition, offset), "lease-" + offset);
  }

  private static void answer(Sent s) {
    for (int i = 0; i < s.acks().size(); i++) {
      s.futures().get(i).complete(new CommandOutcome(s.acks().get(i).getKey(), CommandOutcome.Command.ACK,
          CommandOutcome.Result.APPLIED, null, null, null, null));
    }
  }

  @Test
  void aDeleteWithNothingOnItsWayGoesAtOnceAndThoseComingMeanwhileGoTogetherWhenItIsAnswered() throws Exception {
    DeleteCoalescer c = new DeleteCoalescer(acker, true);
    List<CompletableFuture<CommandOutcome>> first = c.ackAll(null, List.of(ack(0, 1), ack(0, 2)));
    assertEquals(1, sent.size());
    List<CompletableFuture<CommandOutcome>> second = c.ackAll(null, List.of(ack(0, 3)));
    List<CompletableFuture<CommandOutcome>> third = c.ackAll(null, List.of(ack(0, 4), ack(0, 5)));
    assertEquals(1, sent.size(), "partition 0 has a command on its way: the others wait");
    answer(sent.get(0));
    assertEquals("0-1", first.get(0).get().itemId().toString());
    assertEquals("0-2", first.get(1).get().itemId().toString());
    assertFalse(second.get(0).isDone());
    assertEquals(2, sent.size(), "the waiting deletes went as one command");
    assertEquals(List.of(ack(0, 3), ack(0, 4), ack(0, 5)), sent.get(1).acks());
    answer(sent.get(1));
    assertEquals("0-3", second.get(0).get().itemId().toString());
    assertEquals("0-5", third.get(1).get().itemId().toString());
    assertEquals(2, sent.size());
  }

  @Test
  void partitionsAndScopesDoNotWaitForEachOther() {
    DeleteCoalescer c = new DeleteCoalescer(acker, true);
    c.ackAll(null, List.of(ack(0, 1), ack(1, 1)));
    c.ackAll(List.of("team-a"), List.of(ack(0, 2)));
    assertEquals(3, sent.size(), "one per partition, and one of another scope: " + sent);
    assertEquals(List.of("team-a"), sent.get(2).scope());
  }

  @Test
  void aFailedCommandFailsItsDeletesAndTheNextGoes() {
    DeleteCoalescer c = new DeleteCoalescer(acker, true);
    List<CompletableFuture<CommandOutcome>> first = c.ackAll(null, List.of(ack(0, 1)));
    List<CompletableFuture<CommandOutcome>> second = c.ackAll(null, List.of(ack(0, 2)));
    sent.get(0).futures().get(0).completeExceptionally(new IllegalStateException("timed out"));
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> first.get(0).get());
    assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
    assertEquals(2, sent.size());
    answer(sent.get(1));
    assertTrue(second.get(0).isDone() && !second.get(0).isCompletedExceptionally());
  }

  @Test
  void offEachRequestSendsItsOwn() {
    DeleteCoalescer c = new DeleteCoalescer(acker, false);
    c.ackAll(null, List.of(ack(0, 1)));
    c.ackAll(null, List.of(ack(0, 2)));
    assertEquals(2, sent.size());
  }
}
