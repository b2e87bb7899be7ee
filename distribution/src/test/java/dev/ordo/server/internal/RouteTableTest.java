package dev.ordo.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter.Handler;
import dev.ordo.server.auth.Access;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The router's route table without a server: which route a method and path find, and what it refuses. */
class RouteTableTest {
  private static final Handler OK = request -> HttpResponse.ok(Map.of());

  private static RouteTable.Match find(RouteTable table, String method, String path) {
    return table.find(method, RouteTable.split(path));
  }

  @Test
  void aPatternFindsItsParamsAndHeadFindsGet() {
    RouteTable table = new RouteTable();
    Handler item = request -> HttpResponse.ok(Map.of());
    table.add("get", "/v1/items/{id}", item);
    RouteTable.Match.Found found = assertInstanceOf(RouteTable.Match.Found.class,
        find(table, "GET", "/v1/items/01ABC/"));
    assertSame(item, found.route().handler());
    assertEquals(Map.of("id", "01ABC"), found.params());
    assertInstanceOf(RouteTable.Match.Found.class, find(table, "HEAD", "/v1/items/x"));
  }

  @Test
  void aPathWithoutTheMethodNamesTheMethodsAllowedAndAnUnknownPathNone() {
    RouteTable table = new RouteTable();
    table.add("POST", "/v1/items/{id}/ack", OK);
    table.add("DELETE", "/v1/items/{id}", OK);
    table.add("GET", "/v1/items/{id}", OK);
    assertEquals(Set.of("DELETE", "GET"),
        assertInstanceOf(RouteTable.Match.NotFound.class, find(table, "PUT", "/v1/items/7")).allowed());
    assertEquals(Set.of(), ((RouteTable.Match.NotFound) find(table, "GET", "/v1/nothing")).allowed());
  }

  @Test
  void theFirstRouteRegisteredWinsAndTheSamePatternTwiceIsRefused() {
    RouteTable table = new RouteTable();
    Handler first = request -> HttpResponse.ok(Map.of());
    table.add("GET", "/v1/namespaces/{ns}/topics", first);
    table.add("GET", "/v1/namespaces/shop/{what}", OK);
    assertSame(first, ((RouteTable.Match.Found) find(table, "GET", "/v1/namespaces/shop/topics")).route().handler());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> table.add("get", "/v1/namespaces/{name}/topics", OK));
    assertEquals("route GET /v1/namespaces/{name}/topics is already registered as /v1/namespaces/{ns}/topics",
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> table.add("GET", "v1/relative", OK));
    assertEquals(List.of("GET /v1/namespaces/{ns}/topics", "GET /v1/namespaces/shop/{what}"), table.list());
  }

  @Test
  void aRouteKeepsTheAccessRuleItWasRegisteredWith() {
    RouteTable table = new RouteTable();
    Access access = new Access.Authenticated();
    table.add("get", "/v1/own/thing", access, OK);
    assertSame(access, table.ownRule("GET", "/v1/own/thing"));
    assertNull(table.ownRule("HEAD", "/v1/own/thing"));
  }
}
