package dev.ordo.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * A message's attributes, sorted by name, with SQS's checks and its two byte forms. Pure.
 *
 * <p>{@link #md5()} is SQS's {@code MD5OfMessageAttributes}, which the SDKs recompute and compare:
 * the MD5 of, for each attribute in name order,
 * <ol>
 *   <li>the name's UTF-8 length (4 bytes, big-endian) and bytes;</li>
 *   <li>the data type's UTF-8 length and bytes ({@code String}, {@code Number.float}, ...);</li>
 *   <li>one transport byte: 1 for String and Number types, 2 for Binary;</li>
 *   <li>the value's length and bytes (UTF-8 text, or the binary value).</li>
 * </ol>
 * That form loses nothing, so it is also how the attributes travel with the item: one Kafka header,
 * {@value #HEADER}, decoded by {@link #decode}.
 */
public record MessageAttributes(TreeMap<String, Value> values) {
  /** The item header that carries a message's attributes. */
  public static final String HEADER = "sqs.attributes";
  public static final int MAX_ATTRIBUTES = 10;
  public static final MessageAttributes NONE = new MessageAttributes(new TreeMap<>());

  /** One attribute's value: its data type and bytes (UTF-8 text for String and Number types). */
  public record Value(String dataType, byte[] bytes) {
    public boolean binary() {
      return dataType.startsWith("Binary");
    }

    public String text() {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  public boolean isEmpty() {
    return values.isEmpty();
  }

  /** Bytes counted against the message size: names, data types and values, as SQS counts them. */
  public int size() {
    int n = 0;
    for (Map.Entry<String, Value> e : values.entrySet()) {
      n += utf8(e.getKey()).length + utf8(e.getValue().dataType()).length + e.getValue().bytes().length;
    }
    return n;
  }

  /** The attributes whose names {@code names} asks for: {@code All} or {@code .*}, a name, or a prefix {@code p.*}. */
  public MessageAttributes select(List<String> names) {
    if (names.isEmpty() || values.isEmpty()) {
      return NONE;
    }
    Predicate<String> wanted = name -> names.stream().anyMatch(n -> n.equals("All") || n.equals(".*") || n.equals(name)
        || n.endsWith(".*") && name.startsWith(n.substring(0, n.length() - 1)));
    TreeMap<String, Value> out = new TreeMap<>();
    values.forEach((k, v) -> {
      if (wanted.test(k)) {
        out.put(k, v);
      }
    });
    return new MessageAttributes(out);
  }

  /** SQS's MD5OfMessageAttributes, lower-case hex; null when there are no attributes. */
  public String md5() {
    return values.isEmpty() ? null : md5Hex(encode());
  }

  /** The byte form described above. */
  public byte[] encode() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    values.forEach((name, v) -> {
      lengthPrefixed(out, utf8(name));
      lengthPrefixed(out, utf8(v.dataType()));
      out.write(v.binary() ? 2 : 1);
      lengthPrefixed(out, v.bytes());
    });
    return out.toByteArray();
  }

  /** Reads {@link #encode()}'s form back. */
  public static MessageAttributes decode(byte[] bytes) {
    TreeMap<String, Value> out = new TreeMap<>();
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      while (b.hasRemaining()) {
        String name = new String(read(b), StandardCharsets.UTF_8);
        String type = new String(read(b), StandardCharsets.UTF_8);
        b.get(); // the transport byte follows from the type
        out.put(name, new Value(type, read(b)));
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("the " + HEADER + " header is not in SQS's attribute form", e);
    }
    return new MessageAttributes(out);
  }

  private static byte[] read(ByteBuffer b) {
    int n = b.getInt();
    if (n < 0 || n > b.remaining()) {
      throw new IllegalArgumentException("length " + n + " past the end");
    }
    byte[] v = new byte[n];
    b.get(v);
    return v;
  }

  /**
   * The attributes of a request ({@code {"name": {"DataType": ..., "StringValue"|"BinaryValue": ...}}}),
   * checked as SQS checks them; null or absent: none.
   */
  public static MessageAttributes parse(JsonNode node) throws SqsException {
    if (node == null || node.isNull()) {
      return NONE;
    }
    if (!node.isObject()) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("MessageAttributes must be a map");
    }
    TreeMap<String, Value> out = new TreeMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = node.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = e.getKey();
      checkName(name);
      JsonNode v = e.getValue();
      String type = v == null || v.get("DataType") == null ? null : v.get("DataType").asText();
      if (type == null || type.isEmpty()) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("The message attribute '" + name + "' must contain a non-empty"
            + " attribute type.");
      }
      String base = type.contains(".") ? type.substring(0, type.indexOf('.')) : type;
      if (!base.equals("String") && !base.equals("Number") && !base.equals("Binary") || type.length() > 256) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("The type of message attribute '" + name + "' is invalid. You must"
            + " use only the following supported type prefixes: Binary, Number, String.");
      }
      byte[] bytes;
      if (base.equals("Binary")) {
        JsonNode bv = v.get("BinaryValue");
        if (bv == null || bv.isNull() || bv.asText().isEmpty()) {
          throw SqsError.INVALID_PARAMETER_VALUE.with("The message attribute '" + name + "' with type 'Binary' must use"
              + " field 'Binary'.");
        }
        try {
          bytes = Base64.getDecoder().decode(bv.asText());
        } catch (IllegalArgumentException ex) {
          throw SqsError.INVALID_PARAMETER_VALUE.with("The message attribute '" + name + "' is not valid base64.");
        }
      } else {
        JsonNode sv = v.get("StringValue");
        if (sv == null || sv.isNull() || sv.asText().isEmpty()) {
          throw SqsError.INVALID_PARAMETER_VALUE.with("The message attribute '" + name + "' must contain a non-empty"
              + " message attribute value for message attribute type '" + type + "'.");
        }
        String text = sv.asText();
        if (base.equals("Number")) {
          try {
            new BigDecimal(text.trim());
          } catch (NumberFormatException ex) {
            throw SqsError.INVALID_PARAMETER_VALUE.with("Can't cast the value of message (user) attribute '" + name
                + "' to a number.");
          }
        }
        MessageBodies.checkCharacters(text, "message attribute '" + name + "'");
        bytes = utf8(text);
      }
      out.put(name, new Value(type, bytes));
    }
    if (out.size() > MAX_ATTRIBUTES) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("Number of message attributes [" + out.size() + "] exceeds the"
          + " allowed maximum [" + MAX_ATTRIBUTES + "].");
    }
    return new MessageAttributes(out);
  }

  static void checkName(String name) throws SqsException {
    String lower = name.toLowerCase(Locale.ROOT);
    boolean ok = !name.isEmpty() && name.length() <= 256 && name.chars().allMatch(c ->
        c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.')
        && !name.startsWith(".") && !name.endsWith(".") && !name.contains("..")
        && !lower.startsWith("aws.") && !lower.startsWith("amazon.");
    if (!ok) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("Message (user) attribute name '" + name + "' is invalid: 1 to 256"
          + " characters of A-Z, a-z, 0-9, _, - and ., not starting or ending with '.', no '..', and not starting"
          + " with 'AWS.' or 'Amazon.'.");
    }
  }

  /** SQS's MD5OfMessageBody: the MD5 of the body's UTF-8 bytes, lower-case hex. */
  public static String md5Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no MD5", e);
    }
  }

  private static void lengthPrefixed(ByteArrayOutputStream out, byte[] bytes) {
    out.writeBytes(ByteBuffer.allocate(4).putInt(bytes.length).array());
    out.writeBytes(bytes);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
