package dev.ordo.server.sqs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Answers in either protocol, from one result shape (the JSON protocol's: maps, lists, strings and
 * numbers). Pure.
 *
 * <p>The query protocol's XML flattens what JSON nests, as SQS's WSDL does: {@code Attributes} are
 * {@code <Attribute><Name/><Value/></Attribute>} elements, {@code MessageAttributes}
 * {@code <MessageAttribute><Name/><Value>...</Value></MessageAttribute>}, {@code Tags}
 * {@code <Tag><Key/><Value/></Tag>}, and a list repeats its element ({@code QueueUrls} as
 * {@code <QueueUrl>}, {@code Messages} as {@code <Message>}, a batch's {@code Successful} as
 * {@code <ActionResultEntry>} and {@code Failed} as {@code <BatchResultErrorEntry>}).
 */
public final class SqsResponses {
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final String JSON_TYPE = "application/x-amz-json-1.0";
  public static final String XML_TYPE = "text/xml";
  private static final String XMLNS = "http://queue.amazonaws.com/doc/2012-11-05/";

  private SqsResponses() {}

  /** A body and its content type. */
  public record Body(String contentType, byte[] bytes) {}

  public static Body ok(SqsRequest.Protocol protocol, String action, Map<String, Object> result, String requestId) {
    if (protocol == SqsRequest.Protocol.JSON) {
      return new Body(JSON_TYPE, json(result));
    }
    StringBuilder b = new StringBuilder("<?xml version=\"1.0\"?>");
    b.append('<').append(action).append("Response xmlns=\"").append(XMLNS).append("\">");
    if (!result.isEmpty()) {
      b.append('<').append(action).append("Result>");
      members(b, action, result);
      b.append("</").append(action).append("Result>");
    } else {
      b.append('<').append(action).append("Result/>");
    }
    b.append("<ResponseMetadata><RequestId>").append(requestId).append("</RequestId></ResponseMetadata>");
    b.append("</").append(action).append("Response>");
    return new Body(XML_TYPE, b.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** An error answer: JSON {@code {"__type", "message"}} (the query code goes in a header), or XML ErrorResponse. */
  public static Body error(SqsRequest.Protocol protocol, SqsError error, String message, String requestId) {
    if (protocol == SqsRequest.Protocol.JSON) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("__type", "com.amazonaws.sqs#" + error.shape());
      m.put("message", message);
      return new Body(JSON_TYPE, json(m));
    }
    String xml = "<?xml version=\"1.0\"?><ErrorResponse xmlns=\"" + XMLNS + "\"><Error><Type>"
        + (error.senderFault() ? "Sender" : "Receiver") + "</Type><Code>" + escape(error.code()) + "</Code><Message>"
        + escape(message) + "</Message><Detail/></Error><RequestId>" + requestId + "</RequestId></ErrorResponse>";
    return new Body(XML_TYPE, xml.getBytes(StandardCharsets.UTF_8));
  }

  /** The JSON protocol's header naming the query code, which the SDKs report as the error code. */
  public static String queryErrorHeader(SqsError error) {
    return error.code() + ";" + (error.senderFault() ? "Sender" : "Receiver");
  }

  private static byte[] json(Map<String, Object> m) {
    try {
      return JSON.writeValueAsBytes(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static void members(StringBuilder b, String action, Map<String, Object> m) {
    for (Map.Entry<String, Object> e : m.entrySet()) {
      String name = e.getKey();
      Object v = e.getValue();
      if (v == null) {
        continue;
      }
      if (v instanceof Map<?, ?> map && (name.equals("Attributes") || name.equals("Tags")
          || name.equals("MessageAttributes"))) {
        String element = name.substring(0, name.length() - 1);
        String key = name.equals("Tags") ? "Key" : "Name";
        for (Map.Entry<String, Object> a : ((Map<String, Object>) map).entrySet()) {
          b.append('<').append(element).append('>');
          element(b, key, a.getKey());
          if (a.getValue() instanceof Map<?, ?> inner) {
            b.append("<Value>");
            members(b, action, (Map<String, Object>) inner);
            b.append("</Value>");
          } else {
            element(b, "Value", String.valueOf(a.getValue()));
          }
          b.append("</").append(element).append('>');
        }
      } else if (v instanceof List<?> list) {
        String element = listElement(action, name);
        for (Object item : list) {
          if (item instanceof Map<?, ?> inner) {
            b.append('<').append(element).append('>');
            members(b, action, (Map<String, Object>) inner);
            b.append("</").append(element).append('>');
          } else {
            element(b, element, String.valueOf(item));
          }
        }
      } else if (v instanceof Map<?, ?> inner) {
        b.append('<').append(name).append('>');
        members(b, action, (Map<String, Object>) inner);
        b.append("</").append(name).append('>');
      } else {
        element(b, name, String.valueOf(v));
      }
    }
  }

  private static String listElement(String action, String name) {
    return switch (name) {
      case "QueueUrls", "queueUrls" -> "QueueUrl";
      case "Messages" -> "Message";
      case "Successful" -> action + "ResultEntry";
      case "Failed" -> "BatchResultErrorEntry";
      case "Results" -> action + "ResultEntry";
      default -> name;
    };
  }

  private static void element(StringBuilder b, String name, String value) {
    b.append('<').append(name).append('>').append(escape(value)).append("</").append(name).append('>');
  }

  /** XML text: the five entities, and carriage returns kept (an XML parser would fold a bare CR into LF). */
  static String escape(String s) {
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&apos;");
        case '\r' -> out.append("&#xD;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
