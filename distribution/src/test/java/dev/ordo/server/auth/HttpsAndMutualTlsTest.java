package dev.ordo.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.server.TestServer;
import dev.ordo.testing.RealKafka;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP port over TLS, tried with a real TLS client (Python's {@code ssl}, which verifies the
 * server's certificate and host name): API tokens over HTTPS from a PKCS#12 key store, keep-alive
 * kept; mutual TLS from PEM files, the client certificate's subject the principal; certificates made
 * by the JDK's keytool, signed by a test CA.
 */
class HttpsAndMutualTlsTest {
  private static final String PASSWORD = "changeit";
  private static final String BOOTSTRAP = "bootstrap-token-for-tls-0123456789";
  private static final String WORKER = "CN=worker-1,O=Acme";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path dir;

  private static RealKafka kafka;
  private static TestServer tokenServer;
  private static TestServer mtlsServer;

  @BeforeAll
  static void start() throws Exception {
    keytool("-genkeypair", "-alias", "ca", "-dname", "CN=ordo-test-ca", "-ext", "bc:c", "-keystore", "ca.p12");
    keytool("-exportcert", "-alias", "ca", "-keystore", "ca.p12", "-rfc", "-file", "ca.pem");
    signed("server", "CN=127.0.0.1", "san=ip:127.0.0.1,dns:localhost");
    signed("client", WORKER, null);
    writePem("server");
    writePem("client");
    kafka = RealKafka.start(1);
    javax.net.ssl.SSLContext clientTls = clientContext();
    tokenServer = TestServer.startWithSettings(kafka, "tls", dir.resolve("s1"), Map.of(
        SecurityConfig.AUTH, "token", SecurityConfig.BOOTSTRAP_TOKEN, BOOTSTRAP, SecurityConfig.METRICS_PUBLIC, "true",
        SecurityConfig.KEYSTORE, dir.resolve("server.p12").toString(), SecurityConfig.KEYSTORE_PASSWORD, PASSWORD),
        clientTls);
    mtlsServer = TestServer.startWithSettings(kafka, "mtls", dir.resolve("s2"), Map.of(
        SecurityConfig.AUTH, "mtls", SecurityConfig.BOOTSTRAP_TOKEN, BOOTSTRAP,
        SecurityConfig.CERTIFICATE, dir.resolve("server.chain.pem").toString(),
        SecurityConfig.KEY, dir.resolve("server.key.pem").toString(),
        SecurityConfig.TRUSTSTORE, dir.resolve("ca.pem").toString(), SecurityConfig.TRUSTSTORE_TYPE, "PEM"),
        clientTls);
  }

  /** The tests' Java client: trusts the test CA, presents the client certificate when asked. */
  private static javax.net.ssl.SSLContext clientContext() throws Exception {
    KeyStore client = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(dir.resolve("client.p12"))) {
      client.load(in, PASSWORD.toCharArray());
    }
    javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(
        javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(client, PASSWORD.toCharArray());
    javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
        javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(client); // holds the CA's certificate
    javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return ctx;
  }

  @AfterAll
  static void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {mtlsServer, tokenServer, kafka}) {
      if (c != null) {
        c.close();
      }
    }
  }

  @Test
  void tokensOverHttpsOnOneKeepAliveConnectionWithTheCertificateVerified() throws Exception {
    assertTrue(tokenServer.address().toString().startsWith("https://"), tokenServer.address().toString());
    List<JsonNode> answers = python(tokenServer, "ca.pem", null, BOOTSTRAP,
        "GET", "/v1/whoami", "-",
        "POST", "/v1/namespaces/shop/topics/mails/items", "{\"payload\": \"over tls\"}",
        "GET", "/health", "-");
    assertEquals(200, answers.get(0).get("status").asInt(), answers.toString());
    assertEquals(HttpGuard.BOOTSTRAP_ADMIN, JSON.readTree(answers.get(0).get("body").asText()).get("principal").asText());
    assertEquals(201, answers.get(1).get("status").asInt(), answers.toString());
    assertEquals(200, answers.get(2).get("status").asInt());

    assertEquals(401, python(tokenServer, "ca.pem", null, null, "GET", "/v1/namespaces", "-").get(0)
        .get("status").asInt(), "no token");
    assertEquals(200, python(tokenServer, "ca.pem", null, null, "GET", "/metrics", "-").get(0).get("status").asInt(),
        "ordo.metrics.public=true");
    JsonNode untrusted = python(tokenServer, null, null, BOOTSTRAP, "GET", "/v1/whoami", "-").get(0);
    assertTrue(untrusted.has("error") && untrusted.get("error").asText().contains("CERTIFICATE_VERIFY_FAILED"),
        "a client that does not trust the test CA refuses the server: " + untrusted);
  }

  @Test
  void mutualTlsTakesTheCertificatesSubjectAsThePrincipal() throws Exception {
    JsonNode added = python(mtlsServer, "ca.pem", "client", BOOTSTRAP, "POST", "/v1/principals",
        "{\"name\": \"" + WORKER + "\", \"grants\": [\"shop:produce,consume\"], \"token\": false}").get(0);
    assertEquals(201, added.get("status").asInt(), added.toString());

    List<JsonNode> answers = python(mtlsServer, "ca.pem", "client", null,
        "GET", "/v1/whoami", "-",
        "POST", "/v1/namespaces/shop/topics/jobs/items", "{\"payload\": \"by certificate\"}",
        "POST", "/v1/namespaces/other/topics/jobs/items", "{\"payload\": \"not mine\"}");
    assertEquals(WORKER, JSON.readTree(answers.get(0).get("body").asText()).get("principal").asText(), answers.toString());
    assertEquals(201, answers.get(1).get("status").asInt(), answers.toString());
    assertEquals(403, answers.get(2).get("status").asInt(), answers.toString());

    JsonNode noCertificate = python(mtlsServer, "ca.pem", null, null, "GET", "/v1/whoami", "-").get(0);
    assertTrue(noCertificate.has("error"), "the handshake needs a client certificate: " + noCertificate);
  }

  /** Runs tls_client.py against {@code server}; one JSON answer per request. */
  private static List<JsonNode> python(TestServer server, String caFile, String client, String token, String... calls)
      throws Exception {
    Path script = dir.resolve("tls_client.py");
    if (!Files.exists(script)) {
      try (InputStream in = HttpsAndMutualTlsTest.class.getResourceAsStream("tls_client.py")) {
        Files.copy(in, script);
      }
    }
    List<String> cmd = new ArrayList<>(List.of("python3", script.toString(), "127.0.0.1",
        String.valueOf(server.address().getPort()), caFile == null ? "-" : dir.resolve(caFile).toString(),
        client == null ? "-" : dir.resolve(client + ".chain.pem").toString(),
        client == null ? "-" : dir.resolve(client + ".key.pem").toString(), token == null ? "-" : token));
    cmd.addAll(List.of(calls));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    List<JsonNode> answers = new ArrayList<>();
    for (String line : out.split("\n")) {
      if (line.startsWith("{")) {
        answers.add(JSON.readTree(line));
      }
    }
    assertTrue(!answers.isEmpty(), "no answer from the TLS client: " + out);
    return answers;
  }

  /** A key pair {@code name}.p12 whose certificate the test CA signs. */
  private static void signed(String name, String subject, String san) throws Exception {
    keytool("-genkeypair", "-alias", name, "-dname", subject, "-keystore", name + ".p12");
    keytool("-certreq", "-alias", name, "-keystore", name + ".p12", "-file", name + ".csr");
    List<String> gencert = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore", "ca.p12", "-infile",
        name + ".csr", "-outfile", name + ".crt", "-rfc"));
    if (san != null) {
      gencert.addAll(List.of("-ext", san));
    }
    keytool(gencert.toArray(new String[0]));
    keytool("-importcert", "-alias", "ca", "-file", "ca.pem", "-keystore", name + ".p12", "-noprompt");
    keytool("-importcert", "-alias", name, "-file", name + ".crt", "-keystore", name + ".p12");
  }

  /** {@code name}.chain.pem (its certificate, then the CA's) and {@code name}.key.pem (PKCS#8). */
  private static void writePem(String name) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(dir.resolve(name + ".p12"))) {
      ks.load(in, PASSWORD.toCharArray());
    }
    PrivateKey key = (PrivateKey) ks.getKey(name, PASSWORD.toCharArray());
    StringBuilder chain = new StringBuilder();
    for (java.security.cert.Certificate c : ks.getCertificateChain(name)) {
      chain.append(pem("CERTIFICATE", c.getEncoded()));
    }
    Files.writeString(dir.resolve(name + ".chain.pem"), chain);
    Files.writeString(dir.resolve(name + ".key.pem"), pem("PRIVATE KEY", key.getEncoded()));
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
        .encodeToString(der) + "\n-----END " + type + "-----\n";
  }

  private static void keytool(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
    cmd.addAll(List.of(args));
    cmd.addAll(List.of("-storepass", PASSWORD, "-storetype", "PKCS12"));
    if (args[0].equals("-genkeypair")) {
      cmd.addAll(List.of("-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2"));
    }
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
  }
}
