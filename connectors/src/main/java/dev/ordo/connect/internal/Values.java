package dev.ordo.connect.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;

/**
 * Converts what a record field, header or constant holds into an item field's type. Pure; a value
 * of the wrong type throws {@link WrongType} with a message that shows the value and the type expected.
 */
public final class Values {
  private Values() {
  }

  /** A string; numbers and booleans are taken as their text (a numeric customer id as a group key). */
  public static String text(Object v) throws WrongType {
    if (v instanceof String s) {
      return s;
    }
    if (v instanceof Number || v instanceof Boolean || v instanceof Character) {
      return v.toString();
    }
    throw wrong(v, "a string");
  }

  /** An int: an integral number in range, or a string of one. */
  public static int integer(Object v) throws WrongType {
    long n = whole(v, "an integer");
    if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
      throw new WrongType(n + " is out of the int range");
    }
    return (int) n;
  }

  /** A duration: a whole number of milliseconds (number or string), or ISO-8601 text like {@code PT30S}. */
  public static Duration duration(Object v) throws WrongType {
    if (v instanceof String s && !s.isBlank() && (s.charAt(0) == 'P' || s.charAt(0) == 'p'
        || s.startsWith("-P") || s.startsWith("+P"))) {
      try {
        return Duration.parse(s);
      } catch (DateTimeParseException e) {
        throw new WrongType("'" + s + "' is not an ISO-8601 duration (like PT30S)");
      }
    }
    return Duration.ofMillis(whole(v, "a duration (milliseconds or ISO-8601 like PT30S)"));
  }

  /**
   * A point in time: epoch milliseconds (number or string), a Connect {@code Timestamp}
   * ({@link Date}), or ISO-8601 text like {@code 2026-11-25T22:00:00Z}.
   */
  public static Instant instant(Object v) throws WrongType {
    if (v instanceof Date d) {
      return d.toInstant();
    }
    if (v instanceof String s && s.indexOf('T') > 0) {
      try {
        return Instant.parse(s);
      } catch (DateTimeParseException e) {
        throw new WrongType("'" + s + "' is not an ISO-8601 instant (like 2026-11-25T22:00:00Z)");
      }
    }
    return Instant.ofEpochMilli(whole(v, "a time (epoch milliseconds or ISO-8601)"));
  }

  private static long whole(Object v, String expected) throws WrongType {
    if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
      return ((Number) v).longValue();
    }
    if (v instanceof BigInteger b) {
      try {
        return b.longValueExact();
      } catch (ArithmeticException e) {
        throw new WrongType(b + " is out of range");
      }
    }
    if (v instanceof Float || v instanceof Double || v instanceof BigDecimal) {
      BigDecimal d = v instanceof BigDecimal bd ? bd : BigDecimal.valueOf(((Number) v).doubleValue());
      try {
        return d.longValueExact();
      } catch (ArithmeticException e) {
        throw new WrongType(v + " is not a whole number (" + expected + " was expected)");
      }
    }
    if (v instanceof String s) {
      try {
        return Long.parseLong(s.trim());
      } catch (NumberFormatException e) {
        throw new WrongType("'" + s + "' is not " + expected);
      }
    }
    throw wrong(v, expected);
  }

  private static WrongType wrong(Object v, String expected) {
    return new WrongType(described(v) + " is not " + expected);
  }

  /** The value's type with its article, for messages: "a map", "an array", "a string (x)". */
  public static String described(Object v) {
    String t = typeName(v);
    return ("aeiou".indexOf(t.charAt(0)) >= 0 ? "an " : "a ") + t;
  }

  /** The Connect-ish name of a value's type, for messages. */
  public static String typeName(Object v) {
    if (v instanceof Struct) {
      return "struct";
    }
    if (v instanceof Map) {
      return "map";
    }
    if (v instanceof List) {
      return "array";
    }
    if (v instanceof byte[] || v instanceof java.nio.ByteBuffer) {
      return "bytes value";
    }
    return v.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) + " (" + v + ")";
  }

  /** A value that does not convert to the field's type. */
  public static final class WrongType extends Exception {
    public WrongType(String message) {
      super(message);
    }
  }
}
