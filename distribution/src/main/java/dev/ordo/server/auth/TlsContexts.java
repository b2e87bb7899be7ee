package dev.ordo.server.auth;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.common.config.types.Password;

/** The HTTP port's TLS: an {@link SSLContext} from a key store or PEM files, and a trust store for client certificates. */
public final class TlsContexts {
  private TlsContexts() {}

  /** The server's context (its certificate, and the trust store for client certificates if given). */
  public static SSLContext server(SecurityConfig c) {
    try {
      char[] password = chars(c.getPassword(SecurityConfig.KEYSTORE_PASSWORD));
      KeyStore keys;
      if (c.getString(SecurityConfig.KEYSTORE) != null) {
        keys = load(c.getString(SecurityConfig.KEYSTORE), c.getString(SecurityConfig.KEYSTORE_TYPE), password);
      } else {
        password = new char[0];
        keys = pemKeyStore(Path.of(c.getString(SecurityConfig.CERTIFICATE)), Path.of(c.getString(SecurityConfig.KEY)));
      }
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, password);
      TrustManagerFactory tmf = null;
      if (c.getString(SecurityConfig.TRUSTSTORE) != null) {
        tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trustStore(c));
      }
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
      return ctx;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("cannot set up TLS for the HTTP port: " + e.getMessage(), e);
    }
  }

  private static KeyStore trustStore(SecurityConfig c) throws GeneralSecurityException, IOException {
    String location = c.getString(SecurityConfig.TRUSTSTORE);
    String type = c.getString(SecurityConfig.TRUSTSTORE_TYPE);
    if (type.equals("PEM")) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      int i = 0;
      for (Certificate cert : certificates(Path.of(location))) {
        ks.setCertificateEntry("ca-" + i++, cert);
      }
      return ks;
    }
    return load(location, type, chars(c.getPassword(SecurityConfig.TRUSTSTORE_PASSWORD)));
  }

  private static KeyStore load(String location, String type, char[] password) throws GeneralSecurityException, IOException {
    KeyStore ks = KeyStore.getInstance(type);
    try (InputStream in = Files.newInputStream(Path.of(location))) {
      ks.load(in, password);
    }
    return ks;
  }

  /** A key store holding the PEM certificate chain and its PKCS#8 key. */
  static KeyStore pemKeyStore(Path chain, Path key) throws GeneralSecurityException, IOException {
    List<Certificate> certs = certificates(chain);
    if (certs.isEmpty()) {
      throw new GeneralSecurityException("no certificate in " + chain);
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("ordo", privateKey(key), new char[0], certs.toArray(new Certificate[0]));
    return ks;
  }

  static List<Certificate> certificates(Path pem) throws GeneralSecurityException, IOException {
    try (InputStream in = Files.newInputStream(pem)) {
      return new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
    }
  }

  static PrivateKey privateKey(Path pem) throws GeneralSecurityException, IOException {
    String text = Files.readString(pem, StandardCharsets.US_ASCII);
    int begin = text.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = text.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < begin) {
      throw new GeneralSecurityException(pem + " holds no PKCS#8 key ('-----BEGIN PRIVATE KEY-----'); convert one"
          + " with: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key.pk8.pem");
    }
    byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + 27, end));
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (java.security.spec.InvalidKeySpecException e) {
        // try the next
      }
    }
    throw new GeneralSecurityException("the key in " + pem + " is not an RSA, EC or Ed25519 key");
  }

  private static char[] chars(Password p) {
    return p == null ? new char[0] : p.value().toCharArray();
  }
}
