package dev.ordo.server.auth;

import dev.ordo.api.NamespacePattern;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * Who sent a request, as authentication found them, and what they may do: a principal's name and
 * grants. With {@code ordo.http.auth=none} every request is {@link #ANONYMOUS}, which may do anything.
 */
public record Caller(String principal, List<Grant> grants) {
  /** Every request when authentication is off: every permission in every namespace. */
  public static final Caller ANONYMOUS = new Caller("anonymous",
      List.of(new Grant(NamespacePattern.ANY, EnumSet.of(Permission.ADMIN))));

  public Caller {
    grants = List.copyOf(grants);
  }

  /** Whether the caller has {@code permission} in {@code namespace}. */
  public boolean may(Permission permission, String namespace) {
    for (Grant g : grants) {
      if (g.gives(permission, namespace)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the caller has {@code permission} in every namespace (a grant on {@code *}). */
  public boolean mayEverywhere(Permission permission) {
    for (Grant g : grants) {
      if (g.givesEverywhere(permission)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the caller has {@code permission} in at least one namespace. */
  public boolean mayAnywhere(Permission permission) {
    for (Grant g : grants) {
      if (g.givesPermission(permission)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The namespace patterns where the caller has {@code permission}, for a command's scope
   * (Command.namespaces); null when that is every namespace.
   */
  public List<String> scope(Permission permission) {
    if (mayEverywhere(permission)) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (Grant g : grants) {
      if (g.givesPermission(permission)) {
        out.add(g.namespaces());
      }
    }
    return out;
  }

  /** The answer's wording for a refused request: which permission where, and who asked. */
  public String missing(Permission permission, String where) {
    return "permission '" + permission.label() + "' on " + where + " is required; principal '" + principal
        + "' has " + (grants.isEmpty() ? "no grants" : grants.toString());
  }
}
