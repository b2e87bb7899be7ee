package dev.ordo.delay.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class PartitionProgressTest {
  @Test
  void withNothingHeldTheCommittedOffsetIsTheFrontier() {
    PartitionProgress p = PartitionProgress.fresh();
    p.forwarded(10);
    p.forwarded(11);
    assertEquals(12, p.committedOffset());
    assertTrue(p.isForwarded(11));
    assertFalse(p.isForwarded(12));
  }

  @Test
  void aHeldRecordKeepsTheCommittedOffsetWhileTheRecordsBehindItGoOn() {
    PartitionProgress p = PartitionProgress.fresh();
    p.forwarded(10);
    p.held(11);
    p.forwarded(12);
    p.held(13);
    p.forwarded(14);
    assertEquals(11, p.committedOffset());
    assertEquals(15, p.frontier());
    assertFalse(p.isForwarded(11));
    assertTrue(p.isForwarded(12));
    p.forwarded(11);
    assertEquals(13, p.committedOffset());
  }

  @Test
  void aNewOwnerSkipsWhatWasForwardedAndRedecidesWhatWasHeld() {
    PartitionProgress p = PartitionProgress.fresh();
    for (long o = 100; o < 140; o++) {
      if (o % 7 == 0) {
        p.held(o);
      } else {
        p.forwarded(o);
      }
    }
    PartitionProgress restored = PartitionProgress.restore(p.committedOffset(), p.metadata());
    assertEquals(p, restored);
    assertEquals(105, restored.committedOffset());
    for (long o = 105; o < 140; o++) {
      assertEquals(o % 7 != 0, restored.isForwarded(o), "offset " + o);
    }
    assertFalse(restored.isForwarded(140));
  }

  @Test
  void metadataOfTheMostPendingRecordsFitsKafkasDefaultLimit() {
    PartitionProgress p = PartitionProgress.fresh();
    long base = 9_000_000_000L;
    for (int i = 0; i < PartitionProgress.MAX_PENDING; i++) {
      p.held(base + i * 1000L);
      p.forwarded(base + i * 1000L + 1);
    }
    assertTrue(p.metadata().length() < 4096, p.metadata().length() + " characters");
    assertEquals(p, PartitionProgress.restore(p.committedOffset(), p.metadata()));
  }

  @Test
  void foreignOrDamagedMetadataMeansEverythingBelowTheOffsetWasForwarded() {
    for (String metadata : List.of("", "something else", "ordo1:zz", "ordo1:!:1", "ordo1:5:", "ordo1:a:0,b,zzzz")) {
      PartitionProgress p = PartitionProgress.restore(20, metadata);
      assertEquals(20, p.committedOffset(), metadata);
      assertTrue(p.isForwarded(19), metadata);
      assertFalse(p.isForwarded(20), metadata);
      assertEquals(new TreeSet<Long>(), new TreeSet<>(p.pending()), metadata);
    }
    assertEquals(7, PartitionProgress.restore(7, null).committedOffset());
  }
}
