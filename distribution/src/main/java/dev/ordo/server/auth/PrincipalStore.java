package dev.ordo.server.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The principals of a cluster: records on the compacted topic {@code <cluster>.principals}, keyed by
 * name, JSON values (a tombstone removes one). Every instance reads the whole topic at start and
 * follows it, so a change made on one instance reaches the others within a poll (200 ms) and a
 * restart loses nothing; a write returns once this instance has read it back.
 */
public final class PrincipalStore implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FollowedTopic topic;
  private final Map<String, Principal> byName = new ConcurrentHashMap<>();
  /** Token ID to principal name. */
  private final Map<String, String> byToken = new ConcurrentHashMap<>();
  /** SQS access key id to principal name. */
  private final Map<String, String> bySqsKey = new ConcurrentHashMap<>();

  public PrincipalStore(Map<String, Object> kafkaConfig, String topic) {
    this.topic = new FollowedTopic(kafkaConfig, topic, this::apply);
  }

  /** Reads every principal; returns once they are all here. */
  public void start() {
    topic.start();
  }


  public Optional<Principal> get(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** Every principal, by name. */
  public List<Principal> all() {
    List<Principal> out = new ArrayList<>(byName.values());
    out.sort(java.util.Comparator.comparing(Principal::name));
    return out;
  }

  /** The principal that {@code token} authenticates, if any. */
  public Optional<Principal> authenticate(String token) {
    Optional<Tokens.Presented> presented = Tokens.parse(token);
    if (presented.isEmpty()) {
      return Optional.empty();
    }
    String name = byToken.get(presented.get().id());
    Principal p = name == null ? null : byName.get(name);
    if (p == null) {
      return Optional.empty();
    }
    for (Tokens.Stored t : p.tokens()) {
      if (t.id().equals(presented.get().id()) && Tokens.matches(t, presented.get().secret())) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** The principal holding the SQS credential {@code accessKeyId}, if any. */
  public Optional<Principal> bySqsKey(String accessKeyId) {
    String name = bySqsKey.get(accessKeyId);
    return Optional.ofNullable(name == null ? null : byName.get(name));
  }

  /** The secret of the SQS credential {@code accessKeyId}, if a principal holds it (SigV4 needs it). */
  public Optional<String> sqsSecret(String accessKeyId) {
    return bySqsKey(accessKeyId).flatMap(p -> p.sqsCredentials().stream()
        .filter(c -> c.accessKeyId().equals(accessKeyId)).map(SqsCredential::secret).findFirst());
  }

  /** Writes {@code principal} (replacing one of the same name); returns once this instance holds it. */
  public void put(Principal principal) {
    write(principal.name(), encode(principal));
  }

  /** Removes the principal {@code name} and its tokens; false if there was none. */
  public boolean remove(String name) {
    if (!byName.containsKey(name)) {
      return false;
    }
    write(name, null);
    return true;
  }

  private void write(String key, byte[] value) {
    topic.write(key.getBytes(StandardCharsets.UTF_8), value);
  }


  /**
   * One record: the new principal is in place before the old one's dropped tokens go, so a token that
   * stays valid never fails in between; a record that does not decode changes nothing.
   */
  private synchronized void apply(byte[] key, byte[] value) {
    String name = new String(key, StandardCharsets.UTF_8);
    Principal after = value == null ? null : decode(value);
    Principal before = after == null ? byName.remove(name) : byName.put(name, after);
    java.util.Set<String> kept = new java.util.HashSet<>();
    if (after != null) {
      after.tokens().forEach(t -> {
        byToken.put(t.id(), name);
        kept.add(t.id());
      });
    }
    java.util.Set<String> keptKeys = new java.util.HashSet<>();
    if (after != null) {
      after.sqsCredentials().forEach(c -> {
        bySqsKey.put(c.accessKeyId(), name);
        keptKeys.add(c.accessKeyId());
      });
    }
    if (before != null) {
      before.tokens().stream().map(Tokens.Stored::id).filter(id -> !kept.contains(id)).forEach(byToken::remove);
      before.sqsCredentials().stream().map(SqsCredential::accessKeyId).filter(id -> !keptKeys.contains(id))
          .forEach(bySqsKey::remove);
    }
  }

  static byte[] encode(Principal p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", p.name());
    m.put("grants", p.grants().stream().map(Grant::toString).toList());
    m.put("tokens", p.tokens());
    if (!p.sqsCredentials().isEmpty()) {
      m.put("sqsCredentials", p.sqsCredentials());
    }
    m.put("createdAt", p.createdAt());
    try {
      return JSON.writeValueAsBytes(m);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static Principal decode(byte[] value) {
    try {
      JsonNode n = JSON.readTree(value);
      List<Grant> grants = new ArrayList<>();
      n.path("grants").forEach(g -> grants.add(Grant.parse(g.asText())));
      List<Tokens.Stored> tokens = new ArrayList<>();
      for (JsonNode t : n.path("tokens")) {
        tokens.add(new Tokens.Stored(t.path("id").asText(), t.path("salt").asText(), t.path("hash").asText(),
            t.path("createdAt").asLong()));
      }
      List<SqsCredential> sqs = new ArrayList<>();
      for (JsonNode c : n.path("sqsCredentials")) {
        sqs.add(new SqsCredential(c.path("accessKeyId").asText(), c.path("secret").asText(),
            c.path("createdAt").asLong()));
      }
      return new Principal(n.path("name").asText(), grants, tokens, sqs, n.path("createdAt").asLong());
    } catch (IOException e) {
      throw new IllegalArgumentException("not a principal record: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    topic.close();
  }
}
