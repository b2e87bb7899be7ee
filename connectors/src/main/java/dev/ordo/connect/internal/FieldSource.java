package dev.ordo.connect.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Where one item field comes from, parsed from a connector setting:
 * <ul>
 *   <li>{@code field:order.customer.id}: a field of the record value, a dotted path through nested
 *       {@link Struct}s and {@link Map}s;</li>
 *   <li>{@code key:id} a field of the record key ({@code key:} alone: the whole key);</li>
 *   <li>{@code header:x-priority}: the last header of that name;</li>
 *   <li>anything else is a constant ({@code const:...} spells a constant that starts with one of
 *       these prefixes).</li>
 * </ul>
 */
public sealed interface FieldSource {

  /** The value for {@code record}, or null when the record has no such field or header (or it is null). */
  Object read(SinkRecord record);

  /** How a failure names the source: {@code "field 'order.priority'"}. */
  String describe();

  record Constant(Object value) implements FieldSource {
    @Override
    public Object read(SinkRecord record) {
      return value;
    }

    @Override
    public String describe() {
      return "constant '" + value + "'";
    }
  }

  record ValueField(List<String> path) implements FieldSource {
    @Override
    public Object read(SinkRecord record) {
      return walk(record.value(), path);
    }

    @Override
    public String describe() {
      return "field '" + String.join(".", path) + "'";
    }
  }

  record KeyField(List<String> path) implements FieldSource {
    @Override
    public Object read(SinkRecord record) {
      return walk(record.key(), path);
    }

    @Override
    public String describe() {
      return path.isEmpty() ? "record key" : "key field '" + String.join(".", path) + "'";
    }
  }

  record HeaderValue(String name) implements FieldSource {
    @Override
    public Object read(SinkRecord record) {
      Header h = record.headers().lastWithName(name);
      if (h == null) {
        return null;
      }
      Object v = h.value();
      // Headers converted by a ByteArrayConverter-like header converter arrive as bytes: read them as text.
      if (v instanceof byte[] b) {
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
      }
      if (v instanceof ByteBuffer bb) {
        byte[] b = new byte[bb.remaining()];
        bb.duplicate().get(b);
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
      }
      return v;
    }

    @Override
    public String describe() {
      return "header '" + name + "'";
    }
  }

  /**
   * Parses a setting's value; the text of a constant is returned as a {@link Constant} of the
   * string, for the caller to convert to the field's type. Throws {@link InvalidSource} with the reason.
   */
  static FieldSource parse(String spec) throws InvalidSource {
    if (spec.startsWith("field:")) {
      return new ValueField(path(spec.substring("field:".length()), false));
    }
    if (spec.equals("key") || spec.startsWith("key:")) {
      return new KeyField(spec.equals("key") ? List.of() : path(spec.substring("key:".length()), true));
    }
    if (spec.startsWith("header:")) {
      String name = spec.substring("header:".length());
      if (name.isEmpty()) {
        throw new InvalidSource("a header name is missing after 'header:'");
      }
      return new HeaderValue(name);
    }
    if (spec.startsWith("const:")) {
      return new Constant(spec.substring("const:".length()));
    }
    return new Constant(spec);
  }

  private static List<String> path(String dotted, boolean mayBeEmpty) throws InvalidSource {
    if (dotted.isEmpty()) {
      if (mayBeEmpty) {
        return List.of();
      }
      throw new InvalidSource("a field path is missing after 'field:'");
    }
    List<String> parts = Arrays.asList(dotted.split("\\.", -1));
    if (parts.stream().anyMatch(String::isEmpty)) {
      throw new InvalidSource("field path '" + dotted + "' has an empty part");
    }
    return List.copyOf(parts);
  }

  /** Follows {@code path} through Structs and Maps; null when a step is missing or not a container. */
  private static Object walk(Object root, List<String> path) {
    Object at = root;
    for (String step : path) {
      if (at instanceof Struct s) {
        Field f = s.schema().field(step);
        at = f == null ? null : s.get(f);
      } else if (at instanceof Map<?, ?> m) {
        at = m.get(step);
      } else {
        return null;
      }
      if (at == null) {
        return null;
      }
    }
    return at;
  }

  /** A setting that is not a valid source. */
  final class InvalidSource extends Exception {
    public InvalidSource(String message) {
      super(message);
    }
  }
}
