package dev.ordo.server.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** The settings of the HTTP port's security: authentication, TLS, /metrics (docs/security.md). */
public final class SecurityConfig extends AbstractConfig {
  public static final String AUTH = "ordo.http.auth";
  public static final String INSECURE = "ordo.http.insecure";
  public static final String BOOTSTRAP_TOKEN = "ordo.http.auth.bootstrap.token";
  public static final String BOOTSTRAP_TOKEN_FILE = "ordo.http.auth.bootstrap.token.file";
  public static final String KEYSTORE = "ordo.http.tls.keystore.location";
  public static final String KEYSTORE_PASSWORD = "ordo.http.tls.keystore.password";
  public static final String KEYSTORE_TYPE = "ordo.http.tls.keystore.type";
  public static final String CERTIFICATE = "ordo.http.tls.certificate.location";
  public static final String KEY = "ordo.http.tls.key.location";
  public static final String TRUSTSTORE = "ordo.http.tls.truststore.location";
  public static final String TRUSTSTORE_PASSWORD = "ordo.http.tls.truststore.password";
  public static final String TRUSTSTORE_TYPE = "ordo.http.tls.truststore.type";
  public static final String METRICS_PUBLIC = "ordo.metrics.public";

  /** How callers of the HTTP port are authenticated. */
  public enum Mode { NONE, TOKEN, MTLS }

  public static final ConfigDef CONFIG = new ConfigDef()
      .define(AUTH, ConfigDef.Type.STRING, "none", ConfigDef.ValidString.in("none", "token", "mtls"),
          ConfigDef.Importance.HIGH, "How callers of the HTTP port are authenticated: none (anyone may do anything;"
              + " the server then binds only a loopback address unless ordo.http.insecure), token (an API token as"
              + " 'Authorization: Bearer ...') or mtls (a client certificate, its subject the principal; needs TLS"
              + " and a trust store).")
      .define(INSECURE, ConfigDef.Type.BOOLEAN, false, ConfigDef.Importance.MEDIUM,
          "Serve with ordo.http.auth=none on an address other than loopback (--insecure-http).")
      .define(BOOTSTRAP_TOKEN, ConfigDef.Type.PASSWORD, null, ConfigDef.Importance.MEDIUM,
          "A token with admin on every namespace, not stored anywhere (principal 'bootstrap-admin'): to make the"
              + " first principals. Prefer " + BOOTSTRAP_TOKEN_FILE + ".")
      .define(BOOTSTRAP_TOKEN_FILE, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM,
          "A file whose first line is the bootstrap token (see " + BOOTSTRAP_TOKEN + ").")
      .define(KEYSTORE, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM,
          "Key store of the HTTP port's certificate and key; set, the port speaks HTTPS only.")
      .define(KEYSTORE_PASSWORD, ConfigDef.Type.PASSWORD, null, ConfigDef.Importance.MEDIUM,
          "Password of the key store (and of its key).")
      .define(KEYSTORE_TYPE, ConfigDef.Type.STRING, "PKCS12", ConfigDef.ValidString.in("PKCS12", "JKS"),
          ConfigDef.Importance.LOW, "PKCS12 or JKS.")
      .define(CERTIFICATE, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM,
          "Instead of a key store: a PEM file of the port's certificate chain (with " + KEY + ").")
      .define(KEY, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM,
          "A PEM file of the certificate's private key (PKCS#8, unencrypted: 'BEGIN PRIVATE KEY').")
      .define(TRUSTSTORE, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM,
          "The certificates that client certificates must chain to (mtls): a key store, or a PEM file of CA"
              + " certificates with type PEM.")
      .define(TRUSTSTORE_PASSWORD, ConfigDef.Type.PASSWORD, null, ConfigDef.Importance.LOW,
          "Password of the trust store (none for PEM).")
      .define(TRUSTSTORE_TYPE, ConfigDef.Type.STRING, "PKCS12", ConfigDef.ValidString.in("PKCS12", "JKS", "PEM"),
          ConfigDef.Importance.LOW, "PKCS12, JKS or PEM.")
      .define(METRICS_PUBLIC, ConfigDef.Type.BOOLEAN, false, ConfigDef.Importance.MEDIUM,
          "GET /metrics without credentials; false: a principal with operate on some namespace (with"
              + " ordo.http.auth=none anyone may anyway).");

  public SecurityConfig(Map<String, ?> originals) {
    super(CONFIG, originals, false);
  }

  public Mode mode() {
    return Mode.valueOf(getString(AUTH).toUpperCase(Locale.ROOT));
  }

  public boolean insecure() {
    return getBoolean(INSECURE);
  }

  public boolean metricsPublic() {
    return getBoolean(METRICS_PUBLIC);
  }

  /** Whether the HTTP port speaks TLS: a key store or a PEM certificate is given. */
  public boolean tls() {
    return getString(KEYSTORE) != null || getString(CERTIFICATE) != null;
  }

  /** The bootstrap token, from the setting or its file. */
  public Optional<String> bootstrapToken() {
    Password p = getPassword(BOOTSTRAP_TOKEN);
    String file = getString(BOOTSTRAP_TOKEN_FILE);
    if (p != null && file != null) {
      throw new ConfigException("set " + BOOTSTRAP_TOKEN + " or " + BOOTSTRAP_TOKEN_FILE + ", not both");
    }
    if (p != null) {
      return Optional.of(checkToken(p.value(), BOOTSTRAP_TOKEN));
    }
    if (file == null) {
      return Optional.empty();
    }
    try {
      String first = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8).stream().findFirst().orElse("");
      return Optional.of(checkToken(first.trim(), BOOTSTRAP_TOKEN_FILE));
    } catch (IOException e) {
      throw new ConfigException(BOOTSTRAP_TOKEN_FILE, file, "cannot read it: " + e.getMessage());
    }
  }

  private static String checkToken(String token, String key) {
    if (token.length() < 16) {
      throw new ConfigException(key, "[hidden]", "a bootstrap token has at least 16 characters");
    }
    return token;
  }

  /** Checks that the settings go together; the problem in one line, or null. */
  public String problem(boolean loopbackOnly) {
    if (mode() == Mode.MTLS && (!tls() || getString(TRUSTSTORE) == null)) {
      return AUTH + "=mtls needs TLS (" + KEYSTORE + " or " + CERTIFICATE + ") and " + TRUSTSTORE;
    }
    if (getString(CERTIFICATE) != null && getString(KEY) == null) {
      return CERTIFICATE + " needs " + KEY;
    }
    if (mode() == Mode.NONE && !loopbackOnly && !insecure()) {
      return "refusing to serve HTTP without authentication on a non-loopback address: set " + AUTH
          + "=token (or mtls), or give --insecure-http";
    }
    return null;
  }
}
