package dev.ordo.serde;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.schema.Item;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The wire format without a registry (with one: topology's ConfluentFramedInputTest, against a real registry). */
class WireFormatTest {
  private static final Item ITEM = Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(3)
      .setPayload(ByteBuffer.wrap(new byte[] {1, 2, 3})).build();

  @Test
  void withoutARegistryTheBytesAreTheSingleObjectEncodingUnchanged() {
    WireFormat wire = WireFormat.of("", Duration.ofSeconds(1));
    assertEquals(WireFormat.SINGLE_OBJECT, wire);
    assertArrayEquals(OrdoSerdes.ITEM.encode(ITEM), wire.encode(OrdoSerdes.ITEM, "c.items", ITEM));
    assertEquals(ITEM, wire.decode(OrdoSerdes.ITEM, OrdoSerdes.ITEM.encode(ITEM)));
  }

  @Test
  void aConfluentFramedRecordWithoutARegistryIsRefusedNamingTheSetting() {
    byte[] framed = {0, 0, 0, 0, 42, 4, 'n', 's'};
    SchemaResolutionException e = assertThrows(SchemaResolutionException.class,
        () -> WireFormat.SINGLE_OBJECT.decode(OrdoSerdes.ITEM, framed));
    assertEquals(SchemaResolutionException.Kind.NO_REGISTRY, e.kind());
    assertEquals(42, e.schemaId());
    assertTrue(e.getMessage().contains("ordo.schema.registry.url"), e.getMessage());
  }

  @Test
  void bytesThatAreNeitherFramingAreMalformedNotASchemaProblem() {
    OrdoSerdeException e = assertThrows(OrdoSerdeException.class,
        () -> WireFormat.SINGLE_OBJECT.decode(OrdoSerdes.ITEM, new byte[] {7, 7, 7}));
    assertTrue(!(e instanceof SchemaResolutionException), e.toString());
  }

  @Test
  void aRegistryThatCannotBeReachedIsReportedAsUnavailableNotAsAnUnknownId() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    WireFormat wire = WireFormat.of("http://127.0.0.1:" + port, Duration.ofSeconds(2));
    SchemaResolutionException e = assertThrows(SchemaResolutionException.class,
        () -> wire.decode(OrdoSerdes.ITEM, new byte[] {0, 0, 0, 0, 1, 0}));
    assertEquals(SchemaResolutionException.Kind.REGISTRY_UNAVAILABLE, e.kind());
  }
}
