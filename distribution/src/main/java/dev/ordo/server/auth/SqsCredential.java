package dev.ordo.server.auth;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;

/**
 * An SQS credential of a principal: an access key id and its secret, with which an AWS SDK signs
 * requests to the SQS endpoint (AWS Signature Version 4). Unlike a token, the secret is kept as it is:
 * the server must compute the same signature, so it needs the secret itself, not a hash. Whoever reads
 * {@code <cluster>.principals} reads these secrets: that topic must be readable by the Ordo servers only
 * (docs/security.md). Shown once, when made.
 *
 * @param accessKeyId {@code OR} and 18 upper-case hex digits, like AWS's 20-character ids
 * @param secret 40 characters of base64 (30 random bytes), like AWS's secret keys
 */
public record SqsCredential(String accessKeyId, String secret, long createdAt) {
  private static final SecureRandom RANDOM = new SecureRandom();

  public static SqsCredential issue(long now) {
    byte[] id = new byte[9];
    RANDOM.nextBytes(id);
    byte[] secret = new byte[30];
    RANDOM.nextBytes(secret);
    return new SqsCredential("OR" + HexFormat.of().formatHex(id).toUpperCase(Locale.ROOT),
        Base64.getEncoder().encodeToString(secret), now);
  }
}
