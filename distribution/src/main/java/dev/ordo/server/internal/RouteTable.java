package dev.ordo.server.internal;

import dev.ordo.server.HttpRouter.Handler;
import dev.ordo.server.auth.Access;
import dev.ordo.server.auth.AccessRules;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The routes of a {@link RoutingHttpServer}: {@code {param}} path patterns by method, in the order
 * registered, and the access rules of routes registered with one. Pure: finding a route reads no
 * request, only its method and decoded path segments. Safe to register on while requests are served.
 */
final class RouteTable {
  record Route(String method, String pattern, String[] segments, Handler handler) {}

  /** What a request's method and path found. */
  sealed interface Match {
    /** The first route registered for the path and method, and the path's parameters. */
    record Found(Route route, Map<String, String> params) implements Match {}

    /** No route for the method: {@code allowed} are the methods of routes for the path (empty: no such path). */
    record NotFound(TreeSet<String> allowed) implements Match {}
  }

  private final List<Route> routes = new CopyOnWriteArrayList<>();
  /** Access rules of routes registered with one, by "METHOD pattern". */
  private final Map<String, Access> ownRules = new ConcurrentHashMap<>();

  /** Registers a route whose access rule is {@code access}; a route with a rule in {@link AccessRules} may not. */
  void add(String method, String path, Access access, Handler handler) {
    String key = method.toUpperCase(Locale.ROOT) + " " + path;
    if (AccessRules.of(method.toUpperCase(Locale.ROOT), path).isPresent()) {
      throw new IllegalArgumentException("route " + key + " has its rule in AccessRules already");
    }
    add(method, path, handler);
    ownRules.put(key, Objects.requireNonNull(access, "access"));
  }

  /** Registers a route; a path that another route of the method matches the same way is refused. */
  void add(String method, String path, Handler handler) {
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("a route's path starts with '/': " + path);
    }
    String m = method.toUpperCase(Locale.ROOT);
    String[] segments = split(path);
    synchronized (routes) {
      for (Route r : routes) {
        if (r.method.equals(m) && samePattern(r.segments, segments)) {
          throw new IllegalArgumentException("route " + m + " " + path + " is already registered as " + r.pattern);
        }
      }
      routes.add(new Route(m, path, segments, handler));
    }
  }

  /** Every route registered, as {@code "METHOD pattern"}. */
  List<String> list() {
    return routes.stream().map(r -> r.method + " " + r.pattern).toList();
  }

  /** The access rule the route {@code method pattern} was registered with, or null. */
  Access ownRule(String method, String pattern) {
    return ownRules.get(method + " " + pattern);
  }

  /** The route for {@code method} (upper case; HEAD finds GET routes) and the decoded path {@code segments}. */
  Match find(String method, String[] segments) {
    TreeSet<String> allowed = new TreeSet<>();
    for (Route route : routes) {
      Map<String, String> params = match(route.segments, segments);
      if (params == null) {
        continue;
      }
      if (!route.method.equals(method) && !(method.equals("HEAD") && route.method.equals("GET"))) {
        allowed.add(route.method);
        continue;
      }
      return new Match.Found(route, params);
    }
    return new Match.NotFound(allowed);
  }

  /** A path's segments, empty ones (and trailing slashes) left out. */
  static String[] split(String path) {
    String p = path;
    while (p.length() > 1 && p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return Arrays.stream(p.split("/")).filter(s -> !s.isEmpty()).toArray(String[]::new);
  }

  private static boolean samePattern(String[] a, String[] b) {
    if (a.length != b.length) {
      return false;
    }
    for (int i = 0; i < a.length; i++) {
      boolean pa = isParam(a[i]);
      boolean pb = isParam(b[i]);
      if (pa != pb || (!pa && !a[i].equals(b[i]))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isParam(String segment) {
    return segment.length() > 2 && segment.startsWith("{") && segment.endsWith("}");
  }

  private static Map<String, String> match(String[] pattern, String[] segments) {
    if (pattern.length != segments.length) {
      return null;
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (int i = 0; i < pattern.length; i++) {
      if (isParam(pattern[i])) {
        params.put(pattern[i].substring(1, pattern[i].length() - 1), segments[i]);
      } else if (!pattern[i].equals(segments[i])) {
        return null;
      }
    }
    return params;
  }
}
