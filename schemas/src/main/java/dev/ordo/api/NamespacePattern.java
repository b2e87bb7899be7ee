package dev.ordo.api;

import java.util.Collection;

/**
 * A pattern of namespace names, as a grant or a command's scope names them: {@code *} (every
 * namespace), a prefix ending in {@code *} ({@code team-a.*} matches {@code team-a.billing} and
 * {@code team-a.x.y}, not {@code team-a}), or one namespace exactly. The same rule decides in the
 * HTTP API (who may do what) and in the queue (a command's {@code namespaces}), so both agree.
 */
public final class NamespacePattern {
  /** The pattern that matches every namespace. */
  public static final String ANY = "*";

  private NamespacePattern() {}

  /** Whether {@code pattern} matches {@code namespace}. */
  public static boolean matches(String pattern, String namespace) {
    if (pattern.endsWith("*")) {
      return namespace.startsWith(pattern.substring(0, pattern.length() - 1));
    }
    return pattern.equals(namespace);
  }

  /** Whether any of {@code patterns} matches {@code namespace}. */
  public static boolean anyMatches(Collection<? extends CharSequence> patterns, String namespace) {
    for (CharSequence p : patterns) {
      if (matches(p.toString(), namespace)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code wide} matches every namespace that {@code narrow} matches. */
  public static boolean covers(String wide, String narrow) {
    if (!wide.endsWith("*")) {
      return wide.equals(narrow);
    }
    String prefix = wide.substring(0, wide.length() - 1);
    return narrow.startsWith(prefix);
  }

  /** Null when {@code pattern} is a valid pattern, else why not. */
  public static String problem(String pattern) {
    if (pattern == null || pattern.isEmpty()) {
      return "a namespace pattern is missing";
    }
    String name = pattern.endsWith("*") ? pattern.substring(0, pattern.length() - 1) : pattern;
    if (name.isEmpty()) {
      return null;
    }
    String problem = Names.problem("namespace pattern", name);
    return problem != null ? problem
        : name.contains("*") ? "namespace pattern '" + pattern + "' has a '*' before its end" : null;
  }
}
