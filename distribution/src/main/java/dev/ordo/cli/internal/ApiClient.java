package dev.ordo.cli.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.cli.OrdoMain;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * The CLI's client of an Ordo server's HTTP API ({@code java.net.http}). Answers that are not
 * 2xx become a {@link Failure} with the server's {@code error} text and the exit code the CLI
 * uses for them: bad input (400, 413) {@link OrdoMain#EXIT_USAGE}, stale lease (409)
 * {@link OrdoMain#EXIT_STALE_LEASE}, unknown item (404) {@link OrdoMain#EXIT_UNKNOWN_ITEM}, anything
 * else, an unreachable server included, {@link OrdoMain#EXIT_FAILURE}.
 */
public final class ApiClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private final URI server;
  private final HttpClient http;
  private final String token;

  public ApiClient(URI server) {
    this(server, null, null);
  }

  /**
   * @param token an API token sent as {@code Authorization: Bearer}, or null
   * @param caCert PEM certificates to trust for an https server, or null for the JDK's
   */
  public ApiClient(URI server, String token, java.nio.file.Path caCert) {
    this.server = server;
    this.token = token == null || token.isBlank() ? null : token.trim();
    HttpClient.Builder b = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(CONNECT_TIMEOUT);
    if (caCert != null) {
      b.sslContext(trusting(caCert));
    }
    this.http = b.build();
  }

  private static javax.net.ssl.SSLContext trusting(java.nio.file.Path pem) {
    try (java.io.InputStream in = java.nio.file.Files.newInputStream(pem)) {
      java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      int i = 0;
      for (java.security.cert.Certificate c : java.security.cert.CertificateFactory.getInstance("X.509")
          .generateCertificates(in)) {
        ks.setCertificateEntry("ca-" + i++, c);
      }
      javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
          javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new Failure(OrdoMain.EXIT_USAGE, "cannot read the certificates in " + pem + ": " + e.getMessage());
    }
  }

  /** A refused or failed call: one line for the user, and the exit code. */
  public static final class Failure extends RuntimeException {
    private final int exitCode;

    public Failure(int exitCode, String message) {
      super(message, null, false, false);
      this.exitCode = exitCode;
    }

    public int exitCode() {
      return exitCode;
    }
  }

  public JsonNode get(String path, Duration timeout) {
    return send(HttpRequest.newBuilder(uri(path)).GET(), timeout);
  }

  public JsonNode post(String path, Object body, Duration timeout) {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the request as JSON", e);
    }
    return send(HttpRequest.newBuilder(uri(path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)), timeout);
  }

  /** PUT of a JSON body given as text (sent as it is). */
  public JsonNode put(String path, String json, Duration timeout) {
    return send(HttpRequest.newBuilder(uri(path))
        .header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(json)), timeout);
  }

  public JsonNode delete(String path, Duration timeout) {
    return send(HttpRequest.newBuilder(uri(path)).DELETE(), timeout);
  }

  private URI uri(String path) {
    String base = server.toString();
    return URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + path);
  }

  private JsonNode send(HttpRequest.Builder request, Duration timeout) {
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<byte[]> response;
    try {
      response = http.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (HttpConnectTimeoutException | ConnectException e) {
      throw unreachable(e);
    } catch (HttpTimeoutException e) {
      throw new Failure(OrdoMain.EXIT_FAILURE, "no answer from the Ordo server at " + server + " within "
          + timeout.toSeconds() + " s");
    } catch (IOException e) {
      throw unreachable(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failure(OrdoMain.EXIT_FAILURE, "interrupted");
    }
    JsonNode body = parse(response.body());
    int status = response.statusCode();
    if (status >= 200 && status < 300) {
      if (body == null) {
        throw new Failure(OrdoMain.EXIT_FAILURE, "the server at " + server + " answered " + status
            + " without a JSON body; is it an Ordo server?");
      }
      return body;
    }
    String error = body != null && body.hasNonNull("error") ? body.get("error").asText()
        : "HTTP " + status + (body == null ? "" : " " + body);
    int code = switch (status) {
      case 400, 413 -> OrdoMain.EXIT_USAGE;
      case 404 -> body != null && body.hasNonNull("error") && body.get("error").asText().startsWith("no such endpoint")
          ? OrdoMain.EXIT_FAILURE : OrdoMain.EXIT_UNKNOWN_ITEM;
      case 409 -> OrdoMain.EXIT_STALE_LEASE;
      default -> OrdoMain.EXIT_FAILURE;
    };
    if (status == 401) {
      error = error + " (give a token with --token or ORDO_TOKEN)";
    }
    if (code == OrdoMain.EXIT_FAILURE && status >= 500) {
      error = "server error " + status + ": " + error;
    }
    throw new Failure(code, error);
  }

  private Failure unreachable(IOException e) {
    String why = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
    if (e instanceof ConnectException || e.getCause() instanceof ConnectException) {
      why = "connection refused";
    }
    return new Failure(OrdoMain.EXIT_FAILURE, "cannot reach the Ordo server at " + server + " (" + why.trim()
        + "); start one with 'ordo server', or point --server (or ORDO_SERVER) at one");
  }

  private static JsonNode parse(byte[] body) {
    if (body == null || body.length == 0) {
      return null;
    }
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  /** A value as a JSON tree, e.g. to print a line of the CLI's own. */
  public static JsonNode json(Object value) {
    return JSON.valueToTree(value);
  }

  /** One JSON object on one line. */
  public static String line(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
