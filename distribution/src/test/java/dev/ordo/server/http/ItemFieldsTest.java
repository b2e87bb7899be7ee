package dev.ordo.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ordo.client.EnqueueRequest;
import dev.ordo.server.http.internal.JsonBody;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An item's fields read from a JSON body, without a server: what is taken and what is refused by name. */
class ItemFieldsTest {
  private static JsonBody body(String json) {
    return JsonBody.parse(json.getBytes(StandardCharsets.UTF_8), ItemFields.ENQUEUE_FIELDS);
  }

  private static String refusal(String json) {
    return assertThrows(IllegalArgumentException.class,
        () -> ItemFields.enqueueRequest(body(json), "shop", "jobs", null)).getMessage();
  }

  @Test
  void anEnqueueTakesEveryFieldItNames() {
    EnqueueRequest r = ItemFields.enqueueRequest(body("{\"payloadBase64\": \"AQI=\", \"priority\": 7,"
        + " \"leaseMs\": 1500, \"dedupId\": \"d-1\", \"metadata\": \"m\", \"headers\": {\"a\": \"b\"}}"),
        "shop", "jobs", "trace-9");
    assertArrayEquals(new byte[] {1, 2}, r.payload());
    assertEquals(7, r.priority());
    assertEquals(Duration.ofMillis(1500), r.lease());
    assertEquals("d-1", r.dedupId());
    assertArrayEquals("m".getBytes(StandardCharsets.UTF_8), r.metadata());
    assertEquals("trace-9", r.traceId());
  }

  @Test
  void bytesAreTextOrBase64NotBothAndAPayloadIsRequired() {
    assertEquals("set payload or payloadBase64, not both",
        refusal("{\"payload\": \"x\", \"payloadBase64\": \"AQI=\"}"));
    assertEquals("payload is missing: set payload (text) or payloadBase64", refusal("{\"priority\": 1}"));
    assertNull(ItemFields.bytes(body("{\"payload\": \"x\"}"), "metadata", false));
  }

  @Test
  void anEmptyHeaderNameIsRefused() {
    assertEquals("headers: a header name must not be empty", refusal("{\"payload\": \"x\", \"headers\": {\"\": \"v\"}}"));
  }
}
