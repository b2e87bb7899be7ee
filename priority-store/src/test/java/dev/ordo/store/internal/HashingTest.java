package dev.ordo.store.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HashingTest {
  /** ordo bench's group-key run: 1,000 group keys over 4 topics, 10 priorities. */
  @Test
  void fairShareKeysOfStructuredNamesDoNotCollide() {
    Set<Integer> record = new HashSet<>();
    Set<Integer> mixed = new HashSet<>();
    int keys = 0;
    for (int g = 0; g < 1_000; g++) {
      for (int p = 0; p < 10; p++) {
        String topic = "t" + (g % 4);
        String group = "g" + g;
        // what a record's generated hashCode gives: 31-polynomial over the parts
        record.add(((("bench".hashCode() * 31) + topic.hashCode()) * 31 + Integer.hashCode(p)) * 31 + group.hashCode());
        mixed.add(new FairShares.Key("bench", topic, p, group).hashCode());
        keys++;
      }
    }
    assertTrue(record.size() < keys / 3, "the polynomial hash collides by design: " + record.size() + " of " + keys);
    assertTrue(mixed.size() > keys * 0.99, "mixed: " + mixed.size() + " distinct hashes of " + keys);
  }

  @Test
  void keysEqualByValueHashAlike() {
    FairShares.Key a = new FairShares.Key("ns", "t", 3, "g");
    FairShares.Key b = new FairShares.Key(new String("ns"), new String("t"), 3, new String("g"));
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertEquals(new FairShares.Key("ns", "t", 3, null), new FairShares.Key("ns", "t", 3, null));
    assertNotEquals(a, new FairShares.Key("ns", "t", 3, null));
    assertNotEquals(a, new FairShares.Key("ns", "t", 4, "g"));
  }

  @Test
  void byteHashesOfPrefixesDiffer() {
    Set<Integer> hashes = new HashSet<>();
    for (int g = 0; g < 10_000; g++) {
      hashes.add(Hashing.bytes(("ns\0t" + (g % 4) + "\0" + (g % 10) + "g" + g).getBytes()));
    }
    assertTrue(hashes.size() > 9_990, hashes.size() + " distinct of 10,000");
  }
}
