package dev.ordo.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One SQS request, whichever protocol it came in: the action and its parameters in the JSON
 * protocol's shape ({@code {"QueueUrl": ..., "Attributes": {...}, "Entries": [...]}}). A query
 * protocol request ({@code Action=SendMessage&MessageAttribute.1.Name=...}) is turned into that shape
 * by {@link #query}, so every action reads one shape. Pure: no I/O.
 */
public record SqsRequest(Protocol protocol, String action, ObjectNode params) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public enum Protocol { JSON, QUERY }

  /** A JSON protocol request: {@code X-Amz-Target: AmazonSQS.<Action>} and a JSON object body. */
  public static SqsRequest json(String target, byte[] body) throws SqsException {
    String action = target.startsWith("AmazonSQS.") ? target.substring("AmazonSQS.".length()) : target;
    JsonNode node;
    try {
      node = body.length == 0 ? JSON.createObjectNode() : JSON.readTree(body);
    } catch (IOException e) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("the request body is not JSON: " + e.getMessage());
    }
    if (node == null || node.isMissingNode()) {
      node = JSON.createObjectNode();
    }
    if (!node.isObject()) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("the request body must be a JSON object");
    }
    return new SqsRequest(Protocol.JSON, action, (ObjectNode) node);
  }

  /**
   * A query protocol request from its form (and URL query) parameters. Flattened members become the
   * JSON shape: {@code X.N.rest} is element N of list X; {@code Attribute.N.Name/Value},
   * {@code MessageAttribute.N.Name/Value.*}, {@code MessageSystemAttribute.N...} and
   * {@code Tag.N.Key/Value} become maps ({@code Attributes}, {@code MessageAttributes},
   * {@code MessageSystemAttributes}, {@code Tags}); {@code AttributeName.N}, {@code MessageAttributeName.N},
   * {@code MessageSystemAttributeName.N} and {@code TagKey.N} lists get their plural names; a
   * {@code ...RequestEntry.N} list is {@code Entries}.
   */
  public static SqsRequest query(Map<String, String> form) throws SqsException {
    String action = form.get("Action");
    if (action == null || action.isEmpty()) {
      throw SqsError.MISSING_PARAMETER.with("The request must contain the parameter Action.");
    }
    Map<String, Object> tree = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : form.entrySet()) {
      String key = e.getKey();
      if (key.equals("Action") || key.equals("Version") || key.startsWith("X-Amz-") || key.equals("AWSAccessKeyId")
          || key.equals("Signature") || key.equals("SignatureMethod") || key.equals("SignatureVersion")
          || key.equals("Timestamp") || key.equals("Expires")) {
        continue;
      }
      put(tree, key.split("\\.", -1), 0, e.getValue());
    }
    return new SqsRequest(Protocol.QUERY, action, (ObjectNode) normalize(toNode(tree)));
  }

  @SuppressWarnings("unchecked")
  private static void put(Map<String, Object> node, String[] path, int i, String value) throws SqsException {
    String segment = path[i];
    if (segment.isEmpty()) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("malformed parameter name '" + String.join(".", path) + "'");
    }
    if (i == path.length - 1) {
      node.put(segment, value);
      return;
    }
    Object child = node.get(segment);
    if (isIndex(path[i + 1])) {
      TreeMap<Integer, Object> list = child instanceof TreeMap ? (TreeMap<Integer, Object>) child : new TreeMap<>();
      node.put(segment, list);
      int index = Integer.parseInt(path[i + 1]);
      if (i + 1 == path.length - 1) {
        list.put(index, value);
      } else {
        Object element = list.get(index);
        Map<String, Object> m = element instanceof LinkedHashMap ? (Map<String, Object>) element : new LinkedHashMap<>();
        list.put(index, m);
        put(m, path, i + 2, value);
      }
    } else {
      Map<String, Object> m = child instanceof LinkedHashMap ? (Map<String, Object>) child : new LinkedHashMap<>();
      node.put(segment, m);
      put(m, path, i + 1, value);
    }
  }

  private static boolean isIndex(String s) {
    if (s.isEmpty() || s.length() > 6) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (!Character.isDigit(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  @SuppressWarnings("unchecked")
  private static JsonNode toNode(Object o) {
    if (o instanceof TreeMap<?, ?> list) {
      ArrayNode a = JsonNodeFactory.instance.arrayNode();
      list.values().forEach(v -> a.add(toNode(v)));
      return a;
    }
    if (o instanceof Map<?, ?> map) {
      ObjectNode n = JsonNodeFactory.instance.objectNode();
      ((Map<String, Object>) map).forEach((k, v) -> n.set(k, toNode(v)));
      return n;
    }
    return JsonNodeFactory.instance.textNode((String) o);
  }

  /** The JSON protocol's names and shapes for the query protocol's flattened members, at every level. */
  private static JsonNode normalize(JsonNode node) {
    if (node.isArray()) {
      ArrayNode a = JsonNodeFactory.instance.arrayNode();
      node.forEach(e -> a.add(normalize(e)));
      return a;
    }
    if (!node.isObject()) {
      return node;
    }
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      String name = f.getKey();
      JsonNode value = normalize(f.getValue());
      switch (name) {
        case "Attribute" -> out.set("Attributes", toMap(value, "Name", "Value"));
        case "MessageAttribute" -> out.set("MessageAttributes", toMap(value, "Name", "Value"));
        case "MessageSystemAttribute" -> out.set("MessageSystemAttributes", toMap(value, "Name", "Value"));
        case "Tag", "Tags" -> out.set("Tags", value.isArray() ? toMap(value, "Key", "Value") : value);
        case "AttributeName", "MessageAttributeName", "MessageSystemAttributeName", "TagKey" -> out.set(name + "s", value);
        default -> out.set(name.endsWith("RequestEntry") ? "Entries" : name, value);
      }
    }
    return out;
  }

  private static JsonNode toMap(JsonNode list, String key, String value) {
    if (!list.isArray()) {
      return list;
    }
    ObjectNode m = JsonNodeFactory.instance.objectNode();
    for (JsonNode e : list) {
      JsonNode k = e.get(key);
      if (k != null && k.isTextual()) {
        m.set(k.asText(), e.has(value) ? e.get(value) : JsonNodeFactory.instance.nullNode());
      }
    }
    return m;
  }

  // ---- reading parameters ----

  public Optional<String> string(String name) throws SqsException {
    return string(params, name);
  }

  public String required(String name) throws SqsException {
    return required(params, name);
  }

  public Optional<Integer> integer(String name, int min, int max) throws SqsException {
    return integer(params, name, min, max);
  }

  /** A list of strings ({@code AttributeNames}...), empty when absent. */
  public List<String> strings(String name) throws SqsException {
    JsonNode n = params.get(name);
    List<String> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (!n.isArray()) {
      throw SqsError.INVALID_PARAMETER_VALUE.with(name + " must be a list of strings");
    }
    for (JsonNode e : n) {
      if (!e.isTextual()) {
        throw SqsError.INVALID_PARAMETER_VALUE.with(name + " must be a list of strings");
      }
      out.add(e.asText());
    }
    return out;
  }

  /** A map of strings ({@code Attributes}, {@code Tags}), in the order given; empty when absent. */
  public Map<String, String> stringMap(String name) throws SqsException {
    JsonNode n = params.get(name);
    Map<String, String> out = new LinkedHashMap<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (!n.isObject()) {
      throw SqsError.INVALID_PARAMETER_VALUE.with(name + " must be a map of strings");
    }
    Iterator<Map.Entry<String, JsonNode>> it = n.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isValueNode() || e.getValue().isNull()) {
        throw SqsError.INVALID_PARAMETER_VALUE.with(name + "." + e.getKey() + " must be a string");
      }
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }

  /** The entries of a batch ({@code Entries}), each an object. */
  public List<ObjectNode> entries() throws SqsException {
    JsonNode n = params.get("Entries");
    List<ObjectNode> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (!n.isArray()) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("Entries must be a list");
    }
    for (JsonNode e : n) {
      if (!e.isObject()) {
        throw SqsError.INVALID_PARAMETER_VALUE.with("each of Entries must be an object");
      }
      out.add((ObjectNode) e);
    }
    return out;
  }

  static Optional<String> string(JsonNode params, String name) throws SqsException {
    JsonNode n = params.get(name);
    if (n == null || n.isNull()) {
      return Optional.empty();
    }
    if (!n.isValueNode()) {
      throw SqsError.INVALID_PARAMETER_VALUE.with(name + " must be a string");
    }
    return Optional.of(n.asText());
  }

  static String required(JsonNode params, String name) throws SqsException {
    Optional<String> v = string(params, name);
    if (v.isEmpty()) {
      throw SqsError.MISSING_PARAMETER.with("The request must contain the parameter " + name + ".");
    }
    return v.get();
  }

  /** An integer parameter within [min, max] (JSON numbers, or text in the query protocol). */
  static Optional<Integer> integer(JsonNode params, String name, int min, int max) throws SqsException {
    Optional<String> text = string(params, name);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    long v;
    try {
      v = Long.parseLong(text.get().trim());
    } catch (NumberFormatException e) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("Value " + text.get() + " for parameter " + name + " is invalid."
          + " Reason: must be an integer.");
    }
    if (v < min || v > max) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("Value " + v + " for parameter " + name + " is invalid. Reason: must be"
          + " between " + min + " and " + max + ".");
    }
    return Optional.of((int) v);
  }
}
