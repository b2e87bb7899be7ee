package dev.ordo.delay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class HeldRecordsTest {
  private static final TopicPartition P0 = new TopicPartition("shop.delay.200ms", 0);
  private static final TopicPartition P1 = new TopicPartition("shop.delay.200ms", 1);

  private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset) {
    return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, null, new byte[] {1});
  }

  private static List<Long> offsets(List<HeldRecords.Held> held) {
    return held.stream().map(h -> h.record().offset()).toList();
  }

  @Test
  void onlyRecordsWhoseTimeHasComeAreDueInOffsetOrder() {
    HeldRecords held = new HeldRecords();
    HeldRecords.Aside aside = held.of(P0);
    aside.hold(record(P0, 9), 100);
    aside.hold(record(P0, 4), 300);
    aside.hold(record(P0, 7), 100);
    assertEquals(List.of(), offsets(aside.due(99)));
    assertEquals(List.of(7L, 9L), offsets(aside.due(100)));
    assertEquals(List.of(4L, 7L, 9L), offsets(aside.due(300)));
  }

  @Test
  void holdingAgainReplacesTheDueTimeAndReleasingForgetsTheRecord() {
    HeldRecords held = new HeldRecords();
    HeldRecords.Aside aside = held.of(P0);
    aside.hold(record(P0, 4), 100);
    aside.hold(record(P0, 4), 250);
    assertEquals(1, aside.size());
    assertEquals(250, aside.earliestDue());
    aside.release(4);
    assertFalse(aside.contains(4));
    assertEquals(Long.MAX_VALUE, aside.earliestDue());
  }

  @Test
  void nextDueAndSizeSpanAllPartitionsAndForgetDropsAPartition() {
    HeldRecords held = new HeldRecords();
    assertEquals(Long.MAX_VALUE, held.nextDue());
    held.of(P0).hold(record(P0, 1), 500);
    held.of(P1).hold(record(P1, 2), 200);
    held.of(P1).hold(record(P1, 3), 800);
    assertEquals(200, held.nextDue());
    assertEquals(3, held.size());
    held.forget(List.of(P1));
    assertEquals(500, held.nextDue());
    assertEquals(1, held.size());
    assertTrue(held.of(P0).contains(1));
    assertFalse(held.of(P1).contains(2));
  }
}
