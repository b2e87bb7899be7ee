package dev.ordo.server.http;

import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.http.QueueApi.ApiException;
import dev.ordo.server.http.internal.Instances;
import dev.ordo.server.internal.Messages;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.state.HostInfo;

/**
 * {@code GET /v1/cluster}: the instances of the queue's Kafka Streams application and the partitions
 * each runs, as this instance's Kafka Streams knows them from the last rebalance
 * ({@link KafkaStreams#metadataForAllStreamsClients()}): what the console's cluster page shows.
 * The queue's topics are co-partitioned, so partition {@code p} of every source topic is one task.
 */
public final class ClusterApi {
  private final Supplier<KafkaStreams> streams;
  private final HostInfo self;
  private final String cluster;
  private final int partitions;

  public ClusterApi(Supplier<KafkaStreams> streams, HostInfo self, String cluster, int partitions) {
    this.streams = streams;
    this.self = self;
    this.cluster = cluster;
    this.partitions = partitions;
  }

  public void register(HttpRouter router) {
    router.get("/v1/cluster", ApiAnswers.guarded(this::cluster));
  }

  HttpResponse cluster(HttpRequest r) throws ApiException {
    KafkaStreams ks = streams.get();
    if (ks == null) {
      throw new ApiException(503, "the queue is not running on this instance yet");
    }
    Collection<StreamsMetadata> all;
    try {
      all = ks.metadataForAllStreamsClients();
    } catch (StreamsException | IllegalStateException e) {
      throw new ApiException(503, "the queue cannot tell its instances now: " + Messages.oneLine(e));
    }
    return HttpResponse.ok(view(Instances.address(self), ks.state().name(), cluster, partitions, all));
  }

  /**
   * The answer's body: {@code cluster}, {@code self}, {@code state} (this instance's Kafka Streams
   * state), {@code partitionCount}, {@code instances} (by address: {@code address}, {@code self},
   * {@code activePartitions}, {@code standbyPartitions}, {@code topics}) and {@code partitions} (each
   * partition with its {@code active} instance, null while none runs it, and {@code standbys}).
   */
  static Map<String, Object> view(String self, String state, String cluster, int partitionCount,
      Collection<StreamsMetadata> all) {
    Map<Integer, String> active = new TreeMap<>();
    Map<Integer, List<String>> standbys = new TreeMap<>();
    List<Map<String, Object>> instances = new ArrayList<>();
    List<StreamsMetadata> sorted = new ArrayList<>(all);
    sorted.sort(Comparator.comparing(m -> Instances.address(m.hostInfo())));
    for (StreamsMetadata m : sorted) {
      String address = Instances.address(m.hostInfo());
      TreeSet<Integer> act = partitionsOf(m.topicPartitions());
      TreeSet<Integer> stand = partitionsOf(m.standbyTopicPartitions());
      TreeSet<String> topics = new TreeSet<>();
      m.topicPartitions().forEach(tp -> topics.add(tp.topic()));
      act.forEach(p -> active.put(p, address));
      stand.forEach(p -> standbys.computeIfAbsent(p, x -> new ArrayList<>()).add(address));
      Map<String, Object> i = new LinkedHashMap<>();
      i.put("address", address);
      i.put("self", address.equals(self));
      i.put("activePartitions", List.copyOf(act));
      i.put("standbyPartitions", List.copyOf(stand));
      i.put("topics", List.copyOf(topics));
      instances.add(i);
    }
    List<Map<String, Object>> parts = new ArrayList<>();
    for (int p = 0; p < partitionCount; p++) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("partition", p);
      m.put("active", active.get(p));
      m.put("standbys", standbys.getOrDefault(p, List.of()));
      parts.add(m);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("cluster", cluster);
    body.put("self", self);
    body.put("state", state);
    body.put("partitionCount", partitionCount);
    body.put("instances", instances);
    body.put("partitions", parts);
    return body;
  }

  private static TreeSet<Integer> partitionsOf(Collection<TopicPartition> tps) {
    TreeSet<Integer> out = new TreeSet<>();
    tps.forEach(tp -> out.add(tp.partition()));
    return out;
  }
}
