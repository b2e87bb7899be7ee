package dev.ordo.topology.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ordo.api.ItemHeaders;
import dev.ordo.schema.Item;
import dev.ordo.serde.OrdoSerdes;
import dev.ordo.serde.WireFormat;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * The items topic read back for a rebuild of the item table, on a real broker: only the offsets asked
 * for are handed over, decoded with the record's Kafka headers merged as the queue's intake merges
 * them, past transaction markers; under exactly-once an aborted enqueue is not read back.
 */
@KafkaCluster
class KafkaItemSourceTest {
  @Test
  void handsOverTheWantedItemsWithTheirHeadersAndNeverAnAbortedOne(RealKafka kafka) throws Exception {
    String topic = "source-items";
    kafka.createTopics(1, topic);
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "source-test");
    List<Long> committed = new ArrayList<>();
    long aborted;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = 0; i < 5; i++) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("traceparent", ("t" + i).getBytes(StandardCharsets.UTF_8));
        committed.add(producer.send(new ProducerRecord<>(topic, 0, (byte[]) null, item(i), headers)).get().offset());
      }
      producer.commitTransaction();
      producer.beginTransaction();
      aborted = producer.send(new ProducerRecord<>(topic, 0, (byte[]) null, item(99))).get().offset();
      producer.abortTransaction();
      producer.beginTransaction();
      committed.add(producer.send(new ProducerRecord<>(topic, 0, (byte[]) null, item(5))).get().offset());
      producer.commitTransaction();
    }
    Map<String, Object> app = new HashMap<>();
    app.put(StreamsConfig.APPLICATION_ID_CONFIG, "source-test");
    app.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    app.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    KafkaItemSource source = KafkaItemSource.of(app, topic, 0, WireFormat.SINGLE_OBJECT);

    Map<Long, Item> read = new LinkedHashMap<>();
    Map<Long, byte[]> raw = new LinkedHashMap<>();
    List<Long> asked = new ArrayList<>();
    long last = committed.get(committed.size() - 1);
    source.read(committed.get(1), last, offset -> {
      asked.add(offset);
      return offset != committed.get(2);
    }, (offset, encoded) -> {
      raw.put(offset, encoded);
      read.put(offset, OrdoSerdes.ITEM.decode(encoded));
    });

    assertEquals(List.of(committed.get(1), committed.get(2), committed.get(3), committed.get(4), committed.get(5)), asked,
        "asked about every committed record from the first offset on, in order, never the aborted one at " + aborted
            + " nor a transaction marker");
    assertEquals(List.of(committed.get(1), committed.get(3), committed.get(4), committed.get(5)), List.copyOf(read.keySet()));
    Item third = read.get(committed.get(3));
    assertEquals("payload-3", StandardCharsets.UTF_8.decode(third.getPayload()).toString());
    assertEquals("t3", new String(ItemHeaders.fromRecords(third.getHeaders()).lastValue("traceparent"),
        StandardCharsets.UTF_8), "the record's Kafka header joined the item, as at intake");
    assertNull(read.get(committed.get(5)).getHeaders(), "no headers, none added");
    assertArrayEquals(item(5), raw.get(committed.get(5)), "a record without headers: its value as it came");
  }

  @Test
  void theOldItemTablesChangelogIsReadBackLatestValueFirstAndAMissingOneIsNothing(RealKafka kafka) throws Exception {
    String changelog = "legacy-app-" + dev.ordo.store.PriorityStore.STORE_NAME + "-changelog";
    kafka.createTopics(2, changelog);
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>(changelog, 1, bytes("a"), bytes("a1"))).get();
      producer.send(new ProducerRecord<>(changelog, 1, bytes("b"), bytes("b1"))).get();
      producer.send(new ProducerRecord<>(changelog, 1, bytes("a"), bytes("a2"))).get();
      producer.send(new ProducerRecord<>(changelog, 1, bytes("b"), (byte[]) null)).get();
      producer.send(new ProducerRecord<>(changelog, 0, bytes("other"), bytes("x"))).get();
    }
    Map<String, Object> app = new HashMap<>();
    app.put(StreamsConfig.APPLICATION_ID_CONFIG, "legacy-app");
    app.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    java.util.TreeMap<String, String> table = new java.util.TreeMap<>();
    new KafkaLegacyItemTable(app, 1).restoreInto(mapStore(table));
    assertEquals(Map.of("a", "a2"), table, "each key's latest value; a tombstone deletes");

    app.put(StreamsConfig.APPLICATION_ID_CONFIG, "never-ran-before");
    table.clear();
    new KafkaLegacyItemTable(app, 1).restoreInto(mapStore(table));
    assertEquals(Map.of(), table, "no old changelog: nothing");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A key-value store over a map of strings that takes putAll only (what a restore calls). */
  @SuppressWarnings("unchecked")
  private static org.apache.kafka.streams.state.KeyValueStore<org.apache.kafka.common.utils.Bytes, byte[]> mapStore(
      java.util.TreeMap<String, String> map) {
    return (org.apache.kafka.streams.state.KeyValueStore<org.apache.kafka.common.utils.Bytes, byte[]>)
        java.lang.reflect.Proxy.newProxyInstance(KafkaItemSourceTest.class.getClassLoader(),
            new Class<?>[] {org.apache.kafka.streams.state.KeyValueStore.class}, (proxy, method, args) -> {
              if (!method.getName().equals("putAll")) {
                throw new UnsupportedOperationException(method.getName());
              }
              for (org.apache.kafka.streams.KeyValue<org.apache.kafka.common.utils.Bytes, byte[]> kv
                  : (List<org.apache.kafka.streams.KeyValue<org.apache.kafka.common.utils.Bytes, byte[]>>) args[0]) {
                String k = new String(kv.key.get(), StandardCharsets.UTF_8);
                if (kv.value == null) {
                  map.remove(k);
                } else {
                  map.put(k, new String(kv.value, StandardCharsets.UTF_8));
                }
              }
              return null;
            });
  }

  private static byte[] item(int i) {
    return OrdoSerdes.ITEM.encode(Item.newBuilder().setNamespace("ns").setTopic("t").setPriority(0)
        .setPayload(ByteBuffer.wrap(("payload-" + i).getBytes(StandardCharsets.UTF_8))).build());
  }
}
