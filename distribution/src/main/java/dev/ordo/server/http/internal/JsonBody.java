package dev.ordo.server.http.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordo.server.HttpResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A request body read as one JSON object, with typed getters whose errors name the field: every
 * problem is an {@link IllegalArgumentException} (the router's 400), thrown before the handler has
 * done anything. An empty body is an empty object; {@code null} values count as absent; fields not
 * in the endpoint's list are refused, so that a misspelt option is not silently ignored.
 */
public final class JsonBody {
  private static final ObjectReader READER =
      HttpResponse.JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final ObjectNode json;

  private JsonBody(ObjectNode json) {
    this.json = json;
  }

  /** Parses {@code body}; refuses non-objects and fields outside {@code known}. */
  public static JsonBody parse(byte[] body, Set<String> known) {
    ObjectNode object;
    if (body == null || isBlank(body)) {
      object = HttpResponse.JSON.createObjectNode();
    } else {
      checkUtf8(body);
      JsonNode node;
      try {
        node = READER.readTree(body);
      } catch (JsonProcessingException e) {
        String where = e.getLocation() == null ? ""
            : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
        throw new IllegalArgumentException("request body is not valid JSON: " + oneLine(e.getOriginalMessage()) + where);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read the request body: " + e.getMessage());
      }
      if (!(node instanceof ObjectNode o)) {
        throw new IllegalArgumentException("request body must be a JSON object, got " + kind(node));
      }
      checkText(o);
      object = o;
    }
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        throw new IllegalArgumentException("unknown field '" + name + "' (known: " + String.join(", ", known) + ")");
      }
    }
    return new JsonBody(object);
  }

  /**
   * One entry of a batch: {@code node} must be an object with only {@code known} fields; otherwise
   * an IllegalArgumentException naming the problem, which the batch answers for that entry alone.
   */
  public static JsonBody entry(JsonNode node, Set<String> known) {
    if (!(node instanceof ObjectNode o)) {
      throw new IllegalArgumentException("an entry must be a JSON object, got " + kind(node));
    }
    for (Iterator<String> names = o.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        throw new IllegalArgumentException("unknown field '" + name + "' (known: " + String.join(", ", known) + ")");
      }
    }
    return new JsonBody(o);
  }

  /**
   * The array {@code field} of a batch request: required, 1 to {@code max} elements, each returned
   * as is (checked one by one with {@link #entry}).
   */
  public java.util.List<JsonNode> array(String field, int max) {
    JsonNode n = node(field);
    if (n == null) {
      throw new IllegalArgumentException(field + " is missing: give a list, e.g. {\"" + field + "\": [...]}");
    }
    if (!n.isArray()) {
      throw new IllegalArgumentException(field + " must be a list, got " + kind(n));
    }
    if (n.isEmpty() || n.size() > max) {
      throw new IllegalArgumentException(field + " must hold 1 to " + max + " entries, got " + n.size());
    }
    java.util.List<JsonNode> out = new java.util.ArrayList<>(n.size());
    n.forEach(out::add);
    return out;
  }

  /**
   * Refuses a body that is not well-formed UTF-8 (RFC 8259 requires it). Jackson reads some such bytes
   * leniently, e.g. the overlong {@code C0 AF} as '/' and bytes beyond U+10FFFF as unpaired
   * surrogates: a payload or a name would silently become another.
   */
  static void checkUtf8(byte[] body) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(body);
    CharBuffer out = CharBuffer.allocate(8192);
    while (true) {
      CoderResult r = decoder.decode(in, out, true);
      if (r.isError()) {
        throw new IllegalArgumentException("request body is not valid UTF-8: " + r.length() + " malformed byte(s) at"
            + " byte " + in.position() + "; JSON is UTF-8 text (send bytes that are not text as base64, e.g. payloadBase64)");
      }
      if (r.isUnderflow()) {
        break;
      }
      out.clear();
    }
  }

  /**
   * Refuses a string value with an unpaired surrogate ({@code "\\ud800"}: valid JSON, not Unicode
   * text). Encoded as UTF-8 it would become '?', and in a Kafka header's name it makes the producer
   * write a record of the wrong size, which the broker refuses with every other record of its batch
   * (other requests' items included). Field names need no check: Jackson refuses such escapes in names,
   * and {@link #checkUtf8} the bytes that would decode to one.
   */
  static void checkText(JsonNode root) {
    java.util.ArrayDeque<Map.Entry<String, JsonNode>> todo = new java.util.ArrayDeque<>();
    todo.push(Map.entry("", root));
    while (!todo.isEmpty()) {
      Map.Entry<String, JsonNode> next = todo.pop();
      String path = next.getKey();
      JsonNode n = next.getValue();
      if (n.isTextual()) {
        checkText(path, n.textValue());
      } else if (n.isObject()) {
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          todo.push(Map.entry(path.isEmpty() ? e.getKey() : path + "." + e.getKey(), e.getValue()));
        }
      } else if (n.isArray()) {
        for (int i = 0; i < n.size(); i++) {
          todo.push(Map.entry(path + "[" + i + "]", n.get(i)));
        }
      }
    }
  }

  private static void checkText(String where, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(where + " has an unpaired surrogate (\\u"
            + Integer.toHexString(c) + " at character " + i + "): not Unicode text (send bytes that are not text as"
            + " base64, e.g. payloadBase64)");
      }
    }
  }

  private static boolean isBlank(byte[] body) {
    for (byte b : body) {
      if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
        return false;
      }
    }
    return true;
  }

  /** The field's JSON as sent, null when absent or null. */
  public JsonNode node(String field) {
    JsonNode n = json.get(field);
    return n == null || n.isNull() ? null : n;
  }

  public boolean has(String field) {
    return node(field) != null;
  }

  /** A string field, or null when absent. */
  public String string(String field) {
    JsonNode n = node(field);
    if (n == null) {
      return null;
    }
    if (!n.isTextual()) {
      throw new IllegalArgumentException(field + " must be a string, got " + kind(n));
    }
    return n.textValue();
  }

  public String requiredString(String field) {
    String s = string(field);
    if (s == null) {
      throw new IllegalArgumentException(field + " is missing");
    }
    return s;
  }

  /** A base64 string field (standard alphabet, padding optional), decoded; null when absent. */
  public byte[] base64(String field) {
    String s = string(field);
    if (s == null) {
      return null;
    }
    try {
      return Base64.getDecoder().decode(s);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + " is not valid base64: " + e.getMessage());
    }
  }

  /** An int32 field of at least {@code min}, or null when absent. */
  public Integer integer(String field, int min) {
    JsonNode n = node(field);
    if (n == null) {
      return null;
    }
    long v = whole(field, n);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(field + " is out of range (a 32-bit integer), got " + n.asText());
    }
    if (v < min) {
      throw new IllegalArgumentException(field + " must be at least " + min + ", got " + v);
    }
    return (int) v;
  }

  /** A whole number (a count) of at least {@code min}, or null when absent. */
  public Long number(String field, long min) {
    return millis(field, min);
  }

  /** A duration in milliseconds, at least {@code min} (0: "must not be negative"), or null when absent. */
  public Long millis(String field, long min) {
    JsonNode n = node(field);
    if (n == null) {
      return null;
    }
    long v = whole(field, n);
    if (v < min) {
      throw new IllegalArgumentException(field + (min == 0 ? " must not be negative" : " must be at least " + min)
          + ", got " + v);
    }
    return v;
  }

  public Boolean bool(String field) {
    JsonNode n = node(field);
    if (n == null) {
      return null;
    }
    if (!n.isBoolean()) {
      throw new IllegalArgumentException(field + " must be true or false, got " + kind(n));
    }
    return n.booleanValue();
  }

  /**
   * An object of strings (null values allowed), in the body's order; null when absent. Each value
   * goes through {@code value}, which may refuse it with an IllegalArgumentException.
   */
  public Map<String, byte[]> stringObject(String field, java.util.function.Function<String, byte[]> value) {
    JsonNode n = node(field);
    if (n == null) {
      return null;
    }
    if (!n.isObject()) {
      throw new IllegalArgumentException(field + " must be an object of strings, e.g. {\"traceparent\": \"00-...\"}, got "
          + kind(n));
    }
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = field + "." + e.getKey();
      JsonNode v = e.getValue();
      if (v.isNull()) {
        out.put(e.getKey(), null);
        continue;
      }
      if (!v.isTextual()) {
        throw new IllegalArgumentException(name + " must be a string, got " + kind(v));
      }
      try {
        out.put(e.getKey(), value.apply(v.textValue()));
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException(name + " " + bad.getMessage());
      }
    }
    return out;
  }

  /** An object of whole numbers of at least {@code min}, in the body's order; null when absent. */
  public Map<String, Integer> counts(String field, int min) {
    JsonNode n = node(field);
    if (n == null) {
      return null;
    }
    if (!n.isObject()) {
      throw new IllegalArgumentException(field + " must be an object of counts, e.g. {\"jobs\": 10}, got " + kind(n));
    }
    Map<String, Integer> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = field + "." + e.getKey();
      if (e.getValue().isNull()) {
        throw new IllegalArgumentException(name + " must be a count, got null");
      }
      long v = whole(name, e.getValue());
      if (v < min || v > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(name + " must be at least " + min + ", got " + e.getValue().asText());
      }
      out.put(e.getKey(), (int) v);
    }
    return out;
  }

  private static long whole(String field, JsonNode n) {
    if (!n.isNumber()) {
      throw new IllegalArgumentException(field + " must be a whole number, got " + kind(n));
    }
    if (!n.isIntegralNumber()) {
      throw new IllegalArgumentException(field + " must be a whole number, got " + n.asText());
    }
    if (!n.canConvertToLong()) {
      throw new IllegalArgumentException(field + " is out of range, got " + n.asText());
    }
    return n.longValue();
  }

  private static String kind(JsonNode n) {
    if (n.isTextual()) {
      String t = n.textValue();
      return "the string \"" + (t.length() > 40 ? t.substring(0, 40) + "..." : t) + "\"";
    }
    if (n.isNumber()) {
      return "the number " + n.asText();
    }
    if (n.isBoolean()) {
      return n.asText();
    }
    if (n.isArray()) {
      return "an array";
    }
    if (n.isObject()) {
      return "an object";
    }
    return n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s*\\R\\s*", " ").trim();
  }
}
