package dev.ordo.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.auth.Caller;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One HTTP request as a handler sees it. Header names are lower case.
 *
 * @param pathParams the values of the route's {@code {name}} segments, URL-decoded
 * @param query query parameters, URL-decoded, in order
 * @param caller who sent it, as the server's authentication found them (docs/security.md); with
 *     authentication off, {@link Caller#ANONYMOUS}
 */
public record HttpRequest(
    String method,
    String path,
    Map<String, String> pathParams,
    Map<String, List<String>> query,
    Map<String, List<String>> headers,
    byte[] body,
    Caller caller) {

  private static final ObjectMapper JSON = HttpResponse.JSON;

  /** The path parameter {@code name}; the route guarantees it exists. */
  public String pathParam(String name) {
    String value = pathParams.get(name);
    if (value == null) {
      throw new IllegalStateException("route has no path parameter {" + name + "}");
    }
    return value;
  }

  /** The first value of query parameter {@code name}. */
  public Optional<String> queryParam(String name) {
    List<String> values = query.get(name);
    return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
  }

  public Optional<String> header(String name) {
    List<String> values = headers.get(name.toLowerCase(java.util.Locale.ROOT));
    return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
  }

  /** The body parsed as JSON into {@code type}; a malformed body is an {@link IllegalArgumentException} (400). */
  public <T> T bodyAs(Class<T> type) {
    try {
      return JSON.readValue(body, type);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("request body is not valid JSON for " + type.getSimpleName()
          + ": " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the request body: " + e.getMessage());
    }
  }
}
