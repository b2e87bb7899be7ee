package dev.ordo.store.internal;

import static dev.ordo.store.internal.Generators.compareCodePoints;
import static dev.ordo.store.internal.OrderedBytesProperties.hex;
import static dev.ordo.store.internal.OrderedBytesProperties.startsWith;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.store.TimerKind;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Every key layout of the queue store, over generated values: unsigned byte order (what RocksDB
 * compares) equals the logical order, extractors give back what was encoded, and one topic's
 * range never reaches another topic's keys.
 */
class KeyLayoutProperties {

  // ---- names ----

  @Property(seed = "42")
  void namesRoundTrip(@ForAll("names") String ns, @ForAll("names") String topic) {
    String[] decoded = NameKey.decode(ByteBuffer.wrap(NameKey.encode(ns, topic)));
    assertEquals(ns, decoded[0]);
    assertEquals(topic, decoded[1]);
  }

  @Property(seed = "42")
  void nameKeysSortByNamespaceThenTopicInCodePointOrder(
      @ForAll("names") String ns1, @ForAll("names") String t1, @ForAll("names") String ns2, @ForAll("names") String t2) {
    int logical = compareCodePoints(ns1, ns2);
    if (logical == 0) {
      logical = compareCodePoints(t1, t2);
    }
    assertEquals(Integer.signum(logical), Integer.signum(OrderedBytes.compare(NameKey.encode(ns1, t1), NameKey.encode(ns2, t2))));
  }

  /** "a" and "ab" (or "a" + any name): the shorter name's topic key is no prefix of the longer's. */
  @Property(seed = "42")
  void aNameThatIsAPrefixOfAnotherKeepsItsOwnRange(
      @ForAll("names") String ns, @ForAll("names") String base, @ForAll("names") String extension) {
    String longer = base + extension;
    byte[] shortPrefix = ReadyKeySchema.prefix(ns, base);
    byte[] longPrefix = ReadyKeySchema.prefix(ns, longer);
    assertFalse(startsWith(longPrefix, shortPrefix));
    assertFalse(inReadyRange(shortPrefix, ReadyKeySchema.key(longPrefix, Integer.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE)));
    assertFalse(inReadyRange(shortPrefix, ReadyKeySchema.key(longPrefix, Integer.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE)));
    // The same holds when the prefix relation is between namespaces.
    assertFalse(startsWith(ReadyKeySchema.prefix(longer, "t"), ReadyKeySchema.prefix(base, "t")));
    assertFalse(startsWith(CountsKeySchema.key(longer, "t"), CountsKeySchema.namespacePrefix(base)));
  }

  // ---- ready index ----

  @Property(seed = "42", tries = 2000)
  void readyKeysSortByTopicThenPriorityThenReadyAtThenOffset(
      @ForAll("names") String ns1, @ForAll("names") String t1, @ForAll("priorities") int p1,
      @ForAll("longs") long r1, @ForAll("longs") long o1,
      @ForAll("names") String ns2, @ForAll("names") String t2, @ForAll("priorities") int p2,
      @ForAll("longs") long r2, @ForAll("longs") long o2) {
    byte[] k1 = ReadyKeySchema.key(ReadyKeySchema.prefix(ns1, t1), p1, r1, o1);
    byte[] k2 = ReadyKeySchema.key(ReadyKeySchema.prefix(ns2, t2), p2, r2, o2);
    int logical = compareCodePoints(ns1, ns2);
    if (logical == 0) logical = compareCodePoints(t1, t2);
    if (logical == 0) logical = Integer.compare(p1, p2);
    if (logical == 0) logical = Long.compare(r1, r2);
    if (logical == 0) logical = Long.compare(o1, o2);
    assertEquals(Integer.signum(logical), Integer.signum(OrderedBytes.compare(k1, k2)), hex(k1) + " vs " + hex(k2));
  }

  /**
   * Within one topic, the order is exactly (priority, lane, readyAt, offset), ties included: the
   * fresh lane before the backlog lane within a priority, never across priorities.
   */
  @Property(seed = "42", tries = 2000)
  void readyKeysOfOneTopicSortInDequeueOrder(
      @ForAll("names") String ns, @ForAll("names") String t,
      @ForAll("priorities") int p1, @ForAll boolean s1, @ForAll("longs") long r1, @ForAll("longs") long o1,
      @ForAll("priorities") int p2, @ForAll boolean s2, @ForAll("longs") long r2, @ForAll("longs") long o2) {
    byte[] prefix = ReadyKeySchema.prefix(ns, t);
    int logical = new dev.ordo.store.ReadyEntry(p1, s1, r1, o1).compareTo(new dev.ordo.store.ReadyEntry(p2, s2, r2, o2));
    assertEquals(Integer.signum(logical), Integer.signum(OrderedBytes.compare(
        ReadyKeySchema.key(prefix, p1, s1, r1, o1), ReadyKeySchema.key(prefix, p2, s2, r2, o2))));
    if (p1 != p2) {
      assertEquals(Integer.signum(Integer.compare(p1, p2)), Integer.signum(logical), "priority first, whatever the lane");
    }
  }

  @Property(seed = "42")
  void readyKeysRoundTrip(@ForAll("names") String ns, @ForAll("names") String t,
      @ForAll("priorities") int p, @ForAll boolean sidelined, @ForAll("longs") long readyAt, @ForAll("longs") long offset) {
    byte[] prefix = ReadyKeySchema.prefix(ns, t);
    byte[] key = ReadyKeySchema.key(prefix, p, sidelined, readyAt, offset);
    assertEquals(KeyFamily.READY, key[0]);
    assertTrue(startsWith(key, prefix));
    assertEquals(p, ReadyKeySchema.priority(key));
    assertEquals(sidelined, ReadyKeySchema.sidelined(key));
    assertEquals(readyAt, ReadyKeySchema.readyAt(key));
    assertEquals(offset, ReadyKeySchema.offset(key));
    ByteBuffer names = ByteBuffer.wrap(key, 1, key.length - 1).slice();
    assertArrayEquals(new String[] {ns, t}, NameKey.decode(names));
  }

  /** [prefix, upperBound] holds every key of the topic and no key of any other topic. */
  @Property(seed = "42", tries = 2000)
  void aReadyRangeHoldsItsTopicOnly(
      @ForAll("names") String ns1, @ForAll("names") String t1,
      @ForAll("names") String ns2, @ForAll("names") String t2,
      @ForAll("priorities") int p, @ForAll("longs") long readyAt, @ForAll("longs") long offset) {
    byte[] range = ReadyKeySchema.prefix(ns1, t1);
    byte[] other = ReadyKeySchema.key(ReadyKeySchema.prefix(ns2, t2), p, readyAt, offset);
    boolean sameTopic = ns1.equals(ns2) && t1.equals(t2);
    assertEquals(sameTopic, inReadyRange(range, other), ns1 + "/" + t1 + " vs " + ns2 + "/" + t2);
  }

  // ---- group queues ----

  /** Within one group's queue, byte order is (lane, slot, readyAt, offset): the group's dequeue order. */
  @Property(seed = "42", tries = 2000)
  void groupQueueKeysOfOneGroupSortInTheGroupsOrder(
      @ForAll("names") String ns, @ForAll("names") String t, @ForAll("priorities") int p, @ForAll("names") String g,
      @ForAll boolean s1, @ForAll("longs") long slot1, @ForAll("longs") long r1, @ForAll("longs") long o1,
      @ForAll boolean s2, @ForAll("longs") long slot2, @ForAll("longs") long r2, @ForAll("longs") long o2) {
    byte[] prefix = GroupQueueKeySchema.prefix(ns, t, p, g);
    int logical = new dev.ordo.store.ReadyEntry(p, s1, slot1, r1, o1).compareTo(new dev.ordo.store.ReadyEntry(p, s2, slot2, r2, o2));
    assertEquals(Integer.signum(logical), Integer.signum(OrderedBytes.compare(
        GroupQueueKeySchema.key(prefix, s1, slot1, r1, o1), GroupQueueKeySchema.key(prefix, s2, slot2, r2, o2))));
  }

  @Property(seed = "42")
  void groupQueueKeysRoundTrip(@ForAll("names") String ns, @ForAll("names") String t, @ForAll("priorities") int p,
      @ForAll("names") String g, @ForAll boolean sidelined, @ForAll("longs") long slot, @ForAll("longs") long readyAt,
      @ForAll("longs") long offset) {
    byte[] prefix = GroupQueueKeySchema.prefix(ns, t, p, g);
    byte[] key = GroupQueueKeySchema.key(prefix, sidelined, slot, readyAt, offset);
    assertEquals(KeyFamily.GROUP_QUEUE, key[0]);
    assertTrue(startsWith(key, prefix));
    assertEquals(sidelined, GroupQueueKeySchema.sidelined(key));
    assertEquals(slot, GroupQueueKeySchema.slot(key));
    assertEquals(readyAt, GroupQueueKeySchema.readyAt(key));
    assertEquals(offset, GroupQueueKeySchema.offset(key));
  }

  /**
   * A group's range holds its keys only: not another group's (also one whose name extends it, the
   * length prefix sees to that), not another priority's, topic's or namespace's.
   */
  @Property(seed = "42", tries = 2000)
  void aGroupQueueRangeHoldsItsGroupOnly(
      @ForAll("names") String ns1, @ForAll("names") String t1, @ForAll("priorities") int p1, @ForAll("names") String g1,
      @ForAll("names") String ns2, @ForAll("names") String t2, @ForAll("priorities") int p2, @ForAll("names") String g2,
      @ForAll boolean sidelined, @ForAll("longs") long slot, @ForAll("longs") long offset) {
    byte[] prefix = GroupQueueKeySchema.prefix(ns1, t1, p1, g1);
    for (String g : new String[] {g2, g1 + g2}) {
      byte[] other = GroupQueueKeySchema.key(GroupQueueKeySchema.prefix(ns2, t2, p2, g), sidelined, slot, 0, offset);
      boolean inRange = OrderedBytes.compare(prefix, other) <= 0
          && OrderedBytes.compare(other, GroupQueueKeySchema.upperBound(prefix)) <= 0;
      assertEquals(ns1.equals(ns2) && t1.equals(t2) && p1 == p2 && g1.equals(g), inRange);
    }
  }

  @Property(seed = "42")
  void fairShareKeysRoundTrip(@ForAll("names") String ns, @ForAll("names") String t, @ForAll("priorities") int p,
      @ForAll("names") String g, @ForAll boolean grouped) {
    FairShares.Key k = new FairShares.Key(ns, t, p, grouped ? g : null);
    assertEquals(k, FairShares.decodeKey(FairShares.key(k)));
    assertEquals(KeyFamily.GROUPS, FairShares.key(k)[0]);
  }

  // ---- age index ----

  @Property(seed = "42", tries = 2000)
  void ageKeysSortByTopicThenReadyAtThenOffset(
      @ForAll("names") String ns1, @ForAll("names") String t1, @ForAll("longs") long r1, @ForAll("longs") long o1,
      @ForAll("names") String ns2, @ForAll("names") String t2, @ForAll("longs") long r2, @ForAll("longs") long o2) {
    byte[] k1 = AgeKeySchema.key(AgeKeySchema.prefix(ns1, t1), r1, o1);
    byte[] k2 = AgeKeySchema.key(AgeKeySchema.prefix(ns2, t2), r2, o2);
    int logical = compareCodePoints(ns1, ns2);
    if (logical == 0) logical = compareCodePoints(t1, t2);
    if (logical == 0) logical = Long.compare(r1, r2);
    if (logical == 0) logical = Long.compare(o1, o2);
    assertEquals(Integer.signum(logical), Integer.signum(OrderedBytes.compare(k1, k2)));
  }

  @Property(seed = "42")
  void ageKeysRoundTrip(@ForAll("names") String ns, @ForAll("names") String t, @ForAll boolean sidelined,
      @ForAll("longs") long readyAt, @ForAll("longs") long offset) {
    byte[] prefix = AgeKeySchema.prefix(ns, t, sidelined);
    byte[] key = AgeKeySchema.key(prefix, readyAt, offset);
    assertEquals(KeyFamily.AGE, key[0]);
    assertTrue(startsWith(key, prefix));
    assertEquals(readyAt, AgeKeySchema.readyAt(key));
    assertEquals(offset, AgeKeySchema.offset(key));
    assertEquals(offset, OrderedBytes.getLong(ByteBuffer.wrap(key, key.length - 8, 8)));
  }

  /** [prefix, upperBound] of a topic's lane holds that lane's keys only: not the other lane's, not another topic's. */
  @Property(seed = "42", tries = 2000)
  void anAgeRangeHoldsItsTopicAndLaneOnly(
      @ForAll("names") String ns1, @ForAll("names") String t1, @ForAll boolean s1,
      @ForAll("names") String ns2, @ForAll("names") String t2, @ForAll boolean s2,
      @ForAll("longs") long readyAt, @ForAll("longs") long offset) {
    byte[] prefix = AgeKeySchema.prefix(ns1, t1, s1);
    byte[] other = AgeKeySchema.key(AgeKeySchema.prefix(ns2, t2, s2), readyAt, offset);
    boolean inRange = OrderedBytes.compare(prefix, other) <= 0
        && OrderedBytes.compare(other, AgeKeySchema.upperBound(prefix)) <= 0;
    assertEquals(ns1.equals(ns2) && t1.equals(t2) && s1 == s2, inRange);
  }

  // ---- timer index ----

  @Property(seed = "42", tries = 2000)
  void timerKeysSortByKindThenDueThenOffset(
      @ForAll TimerKind k1, @ForAll("longs") long d1, @ForAll("longs") long o1,
      @ForAll TimerKind k2, @ForAll("longs") long d2, @ForAll("longs") long o2) {
    int logical = Byte.compare(k1.code, k2.code);
    if (logical == 0) logical = Long.compare(d1, d2);
    if (logical == 0) logical = Long.compare(o1, o2);
    assertEquals(Integer.signum(logical),
        Integer.signum(OrderedBytes.compare(TimerKeySchema.key(k1.code, d1, o1), TimerKeySchema.key(k2.code, d2, o2))));
  }

  /** Kinds never interleave: a timer due at MIN of a later kind sorts after one due at MAX of an earlier kind. */
  @Property(seed = "42")
  void timerKindsNeverInterleave(@ForAll TimerKind k1, @ForAll TimerKind k2,
      @ForAll("longs") long d1, @ForAll("longs") long o1, @ForAll("longs") long d2, @ForAll("longs") long o2) {
    if (k1 == k2) {
      return;
    }
    TimerKind lo = k1.code < k2.code ? k1 : k2;
    TimerKind hi = lo == k1 ? k2 : k1;
    assertTrue(OrderedBytes.compare(TimerKeySchema.key(lo.code, d1, o1), TimerKeySchema.key(hi.code, d2, o2)) < 0);
    assertTrue(OrderedBytes.compare(TimerKeySchema.dueBy(lo.code, Long.MAX_VALUE), TimerKeySchema.prefix(hi.code)) < 0);
  }

  @Property(seed = "42")
  void timerKeysRoundTrip(@ForAll TimerKind kind, @ForAll("longs") long due, @ForAll("longs") long offset) {
    byte[] key = TimerKeySchema.key(kind.code, due, offset);
    assertEquals(TimerKeySchema.SIZE, key.length);
    assertEquals(KeyFamily.TIMER, key[0]);
    assertTrue(startsWith(key, TimerKeySchema.prefix(kind.code)));
    assertEquals(due, TimerKeySchema.dueAt(key));
    assertEquals(offset, TimerKeySchema.offset(key));
  }

  /** [prefix(kind), dueBy(kind, now)] holds exactly the timers of that kind due at or before now. */
  @Property(seed = "42", tries = 2000)
  void dueByBoundsExactlyTheTimersDueByNow(@ForAll TimerKind scanned, @ForAll("longs") long now,
      @ForAll TimerKind kind, @ForAll("longs") long due, @ForAll("longs") long offset) {
    byte[] key = TimerKeySchema.key(kind.code, due, offset);
    boolean inRange = OrderedBytes.compare(TimerKeySchema.prefix(scanned.code), key) <= 0
        && OrderedBytes.compare(key, TimerKeySchema.dueBy(scanned.code, now)) <= 0;
    assertEquals(kind == scanned && due <= now, inRange);
  }

  // ---- item table ----

  @Property(seed = "42")
  void itemKeysSortByOffsetAndRoundTrip(@ForAll("longs") long o1, @ForAll("longs") long o2) {
    byte[] k1 = ItemKeySchema.key(o1);
    byte[] k2 = ItemKeySchema.key(o2);
    assertEquals(ItemKeySchema.SIZE, k1.length);
    assertEquals(KeyFamily.ITEM, k1[0]);
    assertEquals(o1, ItemKeySchema.offset(k1));
    assertEquals(Integer.signum(Long.compare(o1, o2)), Integer.signum(OrderedBytes.compare(k1, k2)));
  }

  // ---- counts ----

  @Property(seed = "42")
  void countKeysRoundTripAndSortByName(
      @ForAll("names") String ns1, @ForAll("names") String t1, @ForAll("names") String ns2, @ForAll("names") String t2) {
    byte[] k1 = CountsKeySchema.key(ns1, t1);
    assertEquals(KeyFamily.COUNTS, k1[0]);
    assertArrayEquals(new String[] {ns1, t1}, CountsKeySchema.names(k1));
    int logical = compareCodePoints(ns1, ns2);
    if (logical == 0) logical = compareCodePoints(t1, t2);
    assertEquals(Integer.signum(logical), Integer.signum(OrderedBytes.compare(k1, CountsKeySchema.key(ns2, t2))));
  }

  /** A namespace's prefix scan lists its own topics and no other namespace's. */
  @Property(seed = "42")
  void namespacePrefixMatchesItsOwnTopicsOnly(
      @ForAll("names") String scanned, @ForAll("names") String ns, @ForAll("names") String topic) {
    assertEquals(scanned.equals(ns), startsWith(CountsKeySchema.key(ns, topic), CountsKeySchema.namespacePrefix(scanned)));
  }

  @Property(seed = "42")
  void countValuesRoundTrip(@ForAll("longs") long a, @ForAll("longs") long b, @ForAll("longs") long c,
      @ForAll("longs") long d, @ForAll("longs") long e) {
    byte[] value = CountsKeySchema.value(new long[] {a, b, c, d, e});
    assertEquals(CountsKeySchema.VALUE_SIZE, value.length);
    assertArrayEquals(new long[] {a, b, c, d, e}, CountsKeySchema.counts(value));
    // A value written before OVERFLOW existed: four counts, no overflow.
    byte[] old = java.util.Arrays.copyOf(value, 4 * 8);
    assertArrayEquals(new long[] {a, b, c, d, 0}, CountsKeySchema.counts(old));
  }

  /** Overflow keys of a namespace sort by offset and stay inside the namespace's prefix. */
  @Property(seed = "42")
  void overflowKeysSortByOffsetWithinTheirNamespace(@ForAll("names") String ns, @ForAll("names") String other,
      @ForAll("longs") long o1, @ForAll("longs") long o2) {
    byte[] p = OverflowKeySchema.prefix(ns);
    byte[] k1 = OverflowKeySchema.key(p, o1);
    assertEquals(Long.signum(Long.compare(o1, o2)), Integer.signum(OrderedBytes.compare(k1, OverflowKeySchema.key(p, o2))));
    assertEquals(o1, OverflowKeySchema.offset(k1));
    assertTrue(OrderedBytes.compare(k1, OverflowKeySchema.upperBound(p)) <= 0);
    assertEquals(ns.equals(other), startsWith(k1, OverflowKeySchema.prefix(other)));
  }

  // ---- families ----

  @Example
  void familiesAreDistinctAndEveryLayoutStartsWithItsOwn() {
    byte[] families = {KeyFamily.ITEM, KeyFamily.READY, KeyFamily.AGE, KeyFamily.TIMER, KeyFamily.OVERFLOW,
        KeyFamily.COUNTS};
    Set<Byte> seen = new HashSet<>();
    for (byte f : families) {
      assertTrue(seen.add(f), "family byte used twice: " + f);
    }
    assertEquals(KeyFamily.ITEM, ItemKeySchema.key(7)[0]);
    assertEquals(KeyFamily.READY, ReadyKeySchema.prefix("n", "t")[0]);
    assertEquals(KeyFamily.AGE, AgeKeySchema.prefix("n", "t")[0]);
    assertEquals(KeyFamily.TIMER, TimerKeySchema.prefix(TimerKind.DUE.code)[0]);
    assertEquals(KeyFamily.OVERFLOW, OverflowKeySchema.prefix("n")[0]);
    assertEquals(KeyFamily.COUNTS, CountsKeySchema.key("n", "t")[0]);
    // A family's upper bound stays below the next family: no range of one reaches into another.
    assertTrue(OrderedBytes.compare(ReadyKeySchema.upperBound(ReadyKeySchema.prefix("\uFFFF", "\uFFFF")),
        new byte[] {KeyFamily.AGE}) < 0);
    assertTrue(Arrays.stream(TimerKind.values()).map(k -> k.code).distinct().count() == TimerKind.values().length);
  }

  @Provide
  Arbitrary<String> names() {
    return Generators.names();
  }

  @Provide
  Arbitrary<Integer> priorities() {
    return Generators.priorities();
  }

  @Provide
  Arbitrary<Long> longs() {
    return Generators.longs();
  }

  static boolean inReadyRange(byte[] prefix, byte[] key) {
    return OrderedBytes.compare(prefix, key) <= 0 && OrderedBytes.compare(key, ReadyKeySchema.upperBound(prefix)) <= 0;
  }

  @SuppressWarnings("unused")
  private static Arbitrary<TimerKind> kinds() {
    return Arbitraries.of(TimerKind.class);
  }
}
