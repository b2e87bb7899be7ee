package dev.ordo.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * API tokens: {@code ordo_<id>_<secret>}, the ID (12 hex digits) naming the stored token and the
 * secret 32 random bytes (base64url). Only a salted SHA-256 of the secret is kept: a token is shown
 * once, when made. A token has 256 bits of randomness, so a fast hash is enough (no password
 * stretching: there is nothing to guess).
 */
public final class Tokens {
  static final String PREFIX = "ordo_";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Tokens() {}

  /** A token as stored: its ID, salt and hash (base64), and when it was made. */
  public record Stored(String id, String salt, String hash, long createdAt) {}

  /** A new token: the text to give its holder once, and what to store. */
  public record Issued(String text, Stored stored) {}

  /** The parts of a presented token, if it has the token form. */
  record Presented(String id, String secret) {}

  public static Issued issue(long now) {
    byte[] id = new byte[6];
    byte[] secret = new byte[32];
    RANDOM.nextBytes(id);
    RANDOM.nextBytes(secret);
    String idText = HexFormat.of().formatHex(id);
    String secretText = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    return new Issued(PREFIX + idText + "_" + secretText, hash(idText, secretText, now));
  }

  /** The stored form of {@code secret} under a fresh salt. */
  static Stored hash(String id, String secret, long now) {
    byte[] salt = new byte[16];
    RANDOM.nextBytes(salt);
    return new Stored(id, Base64.getEncoder().encodeToString(salt),
        Base64.getEncoder().encodeToString(digest(salt, secret)), now);
  }

  static Optional<Presented> parse(String text) {
    if (text == null || !text.startsWith(PREFIX)) {
      return Optional.empty();
    }
    int sep = text.indexOf('_', PREFIX.length());
    if (sep < 0 || sep == text.length() - 1) {
      return Optional.empty();
    }
    return Optional.of(new Presented(text.substring(PREFIX.length(), sep), text.substring(sep + 1)));
  }

  /** Whether {@code secret} is the one {@code stored} was made from (in constant time). */
  static boolean matches(Stored stored, String secret) {
    byte[] salt;
    byte[] expected;
    try {
      salt = Base64.getDecoder().decode(stored.salt());
      expected = Base64.getDecoder().decode(stored.hash());
    } catch (IllegalArgumentException e) {
      return false;
    }
    return MessageDigest.isEqual(expected, digest(salt, secret));
  }

  private static byte[] digest(byte[] salt, String secret) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(salt);
      return sha.digest(secret.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
