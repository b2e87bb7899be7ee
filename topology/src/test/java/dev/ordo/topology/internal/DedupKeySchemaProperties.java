package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.StringLength;
import org.apache.kafka.common.utils.Bytes;

/** The deduplication window's key layout: expiry keys in window-end order, round trips, prefix-free tuples. */
class DedupKeySchemaProperties {

  @Property(seed = "42")
  void expiryKeysSortInTheOrderTheirWindowsEnd(@ForAll long a, @ForAll long b, @ForAll @StringLength(max = 20) String idA,
      @ForAll @StringLength(max = 20) String idB) {
    Bytes ka = Bytes.wrap(DedupKeySchema.expiryKey(a, DedupKeySchema.entryKey("ns", "t", null, idA)));
    Bytes kb = Bytes.wrap(DedupKeySchema.expiryKey(b, DedupKeySchema.entryKey("ns", "t", null, idB)));
    if (a < b) {
      assertEquals(-1, Integer.signum(ka.compareTo(kb)), a + " before " + b);
    } else if (a > b) {
      assertEquals(1, Integer.signum(ka.compareTo(kb)), a + " after " + b);
    }
    assertFalse(ka.compareTo(Bytes.wrap(DedupKeySchema.expiryStart())) < 0, "inside the family");
    assertEquals(-1, Integer.signum(ka.compareTo(Bytes.wrap(DedupKeySchema.expiryEnd()))), "inside the family");
  }

  @Property(seed = "42")
  void anExpiryKeyGivesBackItsWindowEndAndItsEntry(@ForAll long end, @ForAll String ns, @ForAll String topic,
      @ForAll String group, @ForAll String id) {
    byte[] entry = DedupKeySchema.entryKey(ns, topic, group, id);
    byte[] expiry = DedupKeySchema.expiryKey(end, entry);
    assertEquals(end, DedupKeySchema.expiryEndOf(expiry));
    assertArrayEquals(entry, DedupKeySchema.entryKeyOf(expiry));
    byte[] value = DedupKeySchema.value(end - 7, end);
    assertEquals(end - 7, DedupKeySchema.offsetOf(value));
    assertEquals(end, DedupKeySchema.endOf(value));
  }

  @Property(seed = "42")
  void differentTuplesMakeDifferentEntryKeys(@ForAll @AlphaChars @StringLength(max = 4) String a,
      @ForAll @AlphaChars @StringLength(max = 4) String b, @ForAll @AlphaChars @StringLength(max = 4) String c,
      @ForAll @AlphaChars @StringLength(max = 4) String d) {
    byte[] k = DedupKeySchema.entryKey(a, b, c, d);
    // The same characters split differently: a different key unless it is the same tuple.
    String joined = a + b;
    for (int i = 0; i <= joined.length(); i++) {
      String x = joined.substring(0, i);
      String y = joined.substring(i);
      boolean same = x.equals(a) && y.equals(b);
      assertEquals(same, Arrays.equals(k, DedupKeySchema.entryKey(x, y, c, d)), x + "|" + y);
    }
  }

  @Example
  void noGroupIsTheEmptyGroup() {
    assertArrayEquals(DedupKeySchema.entryKey("n", "t", null, "i"), DedupKeySchema.entryKey("n", "t", "", "i"));
  }
}
