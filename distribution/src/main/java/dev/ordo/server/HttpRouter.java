package dev.ordo.server;

/**
 * The server's HTTP routes. Paths are matched segment by segment; a segment written {@code {name}}
 * matches any one segment and is passed as a path parameter, e.g. {@code /items/{id}}.
 * Registering the same method and path twice is an error.
 *
 * <p>A handler returns an {@link HttpResponse}; if it throws {@link IllegalArgumentException}
 * the client gets 400 with the exception's message, any other exception gives 500. Unknown paths
 * give 404 and known paths with another method 405, all as JSON {@code {"error": "..."}}.
 */
public interface HttpRouter {
  void route(String method, String path, Handler handler);

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
