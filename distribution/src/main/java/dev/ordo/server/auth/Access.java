package dev.ordo.server.auth;

/**
 * Who may call an endpoint ({@link AccessRules}). The check happens before the request's body is
 * read; a handler narrows further where the namespace is only known later (an item's, a dead
 * letter's) or a list is filtered to what the caller may see.
 */
public sealed interface Access {
  /** Anyone, without credentials: /health, the console's static files. */
  record Public() implements Access {}

  /** Any authenticated caller (who am I). */
  record Authenticated() implements Access {}

  /** {@code permission} in the namespace named by the path parameter {@code param}. */
  record InNamespace(Permission permission, String param) implements Access {}

  /** {@code permission} in at least one namespace; the handler limits the request to those. */
  record Somewhere(Permission permission) implements Access {}

  /** {@code permission} in every namespace (a grant on {@code *}): cluster-wide actions. */
  record Everywhere(Permission permission) implements Access {}

  /** The permission this access asks for, or null. */
  default Permission permission() {
    if (this instanceof InNamespace a) {
      return a.permission();
    }
    if (this instanceof Somewhere a) {
      return a.permission();
    }
    if (this instanceof Everywhere a) {
      return a.permission();
    }
    return null;
  }
}
