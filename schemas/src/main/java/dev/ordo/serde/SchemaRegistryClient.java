package dev.ordo.serde;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * The few calls of a Confluent-compatible schema registry's REST API that Ordo needs (Confluent's own
 * client is not on Maven Central): register a schema under a subject, fetch a schema by id, set a
 * subject's compatibility. Works with Confluent Schema Registry, Apicurio Registry's
 * {@code /apis/ccompat/v7} and Karapace. Schemas by id never change, so they are cached for good;
 * registrations are cached per (subject, schema). Thread-safe.
 */
public final class SchemaRegistryClient {
  private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Confluent's error code for "schema not found" (Apicurio answers it too). */
  private static final int SCHEMA_NOT_FOUND = 40403;

  private final String baseUrl;
  private final HttpClient http;
  private final Duration timeout;
  private final Map<Integer, Schema> byId = new ConcurrentHashMap<>();
  private final Map<String, Integer> registered = new ConcurrentHashMap<>();

  /** {@code baseUrl}: the registry's API root, e.g. {@code http://host:8081} or {@code .../apis/ccompat/v7}. */
  public SchemaRegistryClient(String baseUrl, Duration timeout) {
    this.baseUrl = stripSlash(Objects.requireNonNull(baseUrl, "baseUrl"));
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  public String url() {
    return baseUrl;
  }

  /** Registers {@code schema} under {@code subject} (or finds it there) and returns its id. */
  public int register(String subject, Schema schema) {
    String key = subject + "\u0000" + schema.toString();
    Integer known = registered.get(key);
    if (known != null) {
      return known;
    }
    String body = JSON.createObjectNode().put("schemaType", "AVRO").put("schema", schema.toString()).toString();
    JsonNode reply = call("POST", "/subjects/" + enc(subject) + "/versions", body, "register a schema under " + subject);
    int id = reply.path("id").asInt(-1);
    if (id < 0) {
      throw new RegistryException("the registry at " + baseUrl + " answered a registration under " + subject
          + " without an id: " + reply, -1, null);
    }
    registered.put(key, id);
    byId.putIfAbsent(id, schema);
    return id;
  }

  /**
   * The schema with this id.
   *
   * @throws RegistryException with {@link RegistryException#notFound()} when the registry has no such id
   */
  public Schema schema(int id) {
    Schema cached = byId.get(id);
    if (cached != null) {
      return cached;
    }
    JsonNode reply = call("GET", "/schemas/ids/" + id, null, "fetch schema id " + id);
    String type = reply.path("schemaType").asText("AVRO");
    if (!"AVRO".equals(type)) {
      throw new RegistryException("schema id " + id + " is a " + type + " schema, not Avro", 422, null);
    }
    Schema schema;
    try {
      schema = new Schema.Parser().parse(reply.path("schema").asText());
    } catch (RuntimeException e) {
      throw new RegistryException("schema id " + id + " is not a valid Avro schema: " + e.getMessage(), 422, e);
    }
    byId.putIfAbsent(id, schema);
    return schema;
  }

  /** Sets the compatibility level (BACKWARD, FULL, NONE...) of {@code subject}. */
  public void setCompatibility(String subject, String level) {
    String body = JSON.createObjectNode().put("compatibility", level).toString();
    call("PUT", "/config/" + enc(subject), body, "set the compatibility of " + subject);
  }

  /** The compatibility level set on {@code subject}, or null when it has none of its own. */
  public String compatibility(String subject) {
    try {
      JsonNode reply = call("GET", "/config/" + enc(subject), null, "read the compatibility of " + subject);
      JsonNode level = reply.has("compatibilityLevel") ? reply.get("compatibilityLevel") : reply.get("compatibility");
      return level == null ? null : level.asText();
    } catch (RegistryException e) {
      if (e.status() == 404) {
        return null;
      }
      throw e;
    }
  }

  private JsonNode call(String method, String path, String body, String what) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(timeout)
        .header("Accept", CONTENT_TYPE + ", application/json");
    if (body != null) {
      request.header("Content-Type", CONTENT_TYPE).method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new RegistryException("cannot " + what + ": the schema registry at " + baseUrl + " is unreachable: " + e,
          -1, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RegistryException("interrupted while trying to " + what + " at " + baseUrl, -1, e);
    }
    JsonNode reply;
    try {
      reply = response.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(response.body());
    } catch (IOException e) {
      throw new RegistryException("cannot " + what + ": the schema registry at " + baseUrl + " answered "
          + response.statusCode() + " with something that is not JSON: " + abbreviate(response.body()),
          response.statusCode(), e);
    }
    if (response.statusCode() / 100 != 2) {
      int code = reply.path("error_code").asInt(0);
      throw new RegistryException("cannot " + what + ": the schema registry at " + baseUrl + " answered "
          + response.statusCode() + (code != 0 ? " (error " + code + ")" : "") + ": "
          + reply.path("message").asText(abbreviate(response.body())),
          code == SCHEMA_NOT_FOUND ? 404 : response.statusCode(), null);
    }
    return reply;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "...";
  }

  /**
   * A registry call that failed: {@link #status()} is the HTTP status (404 also for Confluent's
   * "schema not found" error code), or -1 when the registry could not be reached.
   */
  public static final class RegistryException extends RuntimeException {
    private final int status;

    RegistryException(String message, int status, Throwable cause) {
      super(message, cause);
      this.status = status;
    }

    public int status() {
      return status;
    }

    public boolean notFound() {
      return status == 404;
    }

    /** The registry was not reached (or timed out): another try may succeed. */
    public boolean unreachable() {
      return status < 0 || status >= 500;
    }
  }
}
