package dev.ordo.server.auth;

import dev.ordo.api.NamespacePattern;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Permissions in the namespaces a pattern matches ({@link NamespacePattern}: {@code shop},
 * {@code team-a.*}, {@code *}). Written {@code PATTERN:PERMISSION[,PERMISSION...]}, e.g.
 * {@code team-a.*:produce,consume}.
 */
public record Grant(String namespaces, Set<Permission> permissions) {
  public Grant {
    String problem = NamespacePattern.problem(namespaces);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    if (permissions == null || permissions.isEmpty()) {
      throw new IllegalArgumentException("grant on '" + namespaces + "' names no permission");
    }
    permissions = Collections.unmodifiableSet(EnumSet.copyOf(permissions));
  }

  /** Whether this grant gives {@code permission} in {@code namespace}. */
  public boolean gives(Permission permission, String namespace) {
    return givesPermission(permission) && NamespacePattern.matches(namespaces, namespace);
  }

  /** Whether this grant gives {@code permission} in every namespace. */
  public boolean givesEverywhere(Permission permission) {
    return givesPermission(permission) && namespaces.equals(NamespacePattern.ANY);
  }

  boolean givesPermission(Permission permission) {
    for (Permission p : permissions) {
      if (p.implied().contains(permission)) {
        return true;
      }
    }
    return false;
  }

  /** Parses {@code PATTERN:PERMISSION[,PERMISSION...]}. */
  public static Grant parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("a grant is NAMESPACES:PERMISSIONS, e.g. 'team-a.*:produce,consume', got '"
          + text + "'");
    }
    Set<Permission> permissions = EnumSet.noneOf(Permission.class);
    for (String p : text.substring(colon + 1).split(",")) {
      permissions.add(Permission.parse(p));
    }
    return new Grant(text.substring(0, colon).trim(), permissions);
  }

  public static List<Grant> parseAll(List<String> texts) {
    List<Grant> out = new ArrayList<>();
    texts.forEach(t -> out.add(parse(t)));
    return out;
  }

  @Override
  public String toString() {
    return namespaces + ":" + permissions.stream().map(Permission::label).collect(Collectors.joining(","));
  }
}
