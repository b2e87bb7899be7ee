package dev.ordo.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a handler answers. A body that is a {@code byte[]} or {@code String} is sent as is with
 * {@link #contentType()}; any other body is written as JSON with Jackson.
 */
public record HttpResponse(int status, Object body, String contentType, Map<String, String> headers) {
  /** The server's JSON mapper: ISO-8601 timestamps, no nulls dropped. */
  public static final ObjectMapper JSON = new ObjectMapper()
      .findAndRegisterModules()
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  public static final String APPLICATION_JSON = "application/json";

  public HttpResponse {
    headers = Map.copyOf(headers);
  }

  public static HttpResponse json(int status, Object body) {
    return new HttpResponse(status, body, APPLICATION_JSON, Map.of());
  }

  public static HttpResponse ok(Object body) {
    return json(200, body);
  }

  /** {@code {"error": message}} with the given status. */
  public static HttpResponse error(int status, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", message);
    return json(status, body);
  }

  public static HttpResponse text(int status, String text) {
    return new HttpResponse(status, text, "text/plain; charset=utf-8", Map.of());
  }

  public HttpResponse withHeader(String name, String value) {
    Map<String, String> h = new LinkedHashMap<>(headers);
    h.put(name, value);
    return new HttpResponse(status, body, contentType, h);
  }
}
