package dev.ordo.server.auth;

import java.util.List;

/**
 * A principal as {@code <cluster>.principals} holds it, keyed by name: its grants, its tokens (hashes
 * only), its SQS credentials (secrets kept as they are: AWS Signature Version 4 needs them on the
 * server, docs/security.md) and when it was made. A principal authenticated by mutual TLS is named by its certificate's
 * subject in RFC 2253 form, e.g. {@code CN=worker-1,O=Acme}.
 */
public record Principal(String name, List<Grant> grants, List<Tokens.Stored> tokens,
    List<SqsCredential> sqsCredentials, long createdAt) {
  /** A principal without SQS credentials. */
  public Principal(String name, List<Grant> grants, List<Tokens.Stored> tokens, long createdAt) {
    this(name, grants, tokens, List.of(), createdAt);
  }

  public Principal {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a principal's name is missing");
    }
    if (name.length() > 256 || name.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("a principal's name is at most 256 characters, none a control character");
    }
    grants = List.copyOf(grants);
    tokens = List.copyOf(tokens);
    sqsCredentials = List.copyOf(sqsCredentials);
  }

  public Caller caller() {
    return new Caller(name, grants);
  }
}
