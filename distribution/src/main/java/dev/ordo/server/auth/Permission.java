package dev.ordo.server.auth;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a principal may do in a namespace: a small fixed set that maps to what people do (docs/security.md).
 * {@link #ADMIN} implies the other three in the same namespaces.
 */
public enum Permission {
  /** Enqueue items (one or a batch), schedule records. */
  PRODUCE,
  /** Dequeue, ack, nack, extend, release, cancel. */
  CONSUME,
  /**
   * Topics, item look-up, peek, dead letters (list, show, redrive, purge), pause, resume and purge a topic, the
   * console's figures, /metrics.
   */
  OPERATE,
  /** Policies; with a grant on {@code *}: principals and the audit log. */
  ADMIN;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The permissions a grant of {@code this} gives. */
  public Set<Permission> implied() {
    return this == ADMIN ? EnumSet.allOf(Permission.class) : EnumSet.of(this);
  }

  /** {@code produce}, {@code consume}, {@code operate} or {@code admin}, any case. */
  public static Permission parse(String text) {
    for (Permission p : values()) {
      if (p.label().equalsIgnoreCase(text.trim())) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown permission '" + text + "': produce, consume, operate or admin");
  }
}
