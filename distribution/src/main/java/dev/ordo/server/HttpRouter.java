package dev.ordo.server;

/**
 * The server's HTTP routes. Paths are matched segment by segment; a segment written {@code {name}}
 * matches any one segment and is passed as a path parameter, e.g. {@code /items/{id}}.
 * Registering the same method and path twice is an error.
 *
 * <p>A handler returns an {@link HttpResponse}; if it throws {@link IllegalArgumentException}
 * the client gets 400 with the exception's message, any other exception gives 500. Unknown paths
 * give 404 and known paths with another method 405, all as JSON {@code {"error": "..."}}.
 *
 * <p>Who may call a route: Ordo's own routes have their rule in
 * {@link dev.ordo.server.auth.AccessRules}; a component of its own registers its routes with
 * {@link #route(String, String, dev.ordo.server.auth.Access, Handler)}. A route with no rule is
 * refused to everyone (403), whatever {@code ordo.http.auth} says.
 */
public interface HttpRouter {
  void route(String method, String path, Handler handler);

  /** A route and who may call it (docs/security.md). */
  void route(String method, String path, dev.ordo.server.auth.Access access, Handler handler);

  default void get(String path, Handler handler) {
    route("GET", path, handler);
  }

  default void post(String path, Handler handler) {
    route("POST", path, handler);
  }

  default void put(String path, Handler handler) {
    route("PUT", path, handler);
  }

  default void delete(String path, Handler handler) {
    route("DELETE", path, handler);
  }

  @FunctionalInterface
  interface Handler {
    HttpResponse handle(HttpRequest request) throws Exception;
  }
}
