package dev.ordo.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordo.api.ItemId;
import dev.ordo.schema.StoredItem;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.HttpRouter;
import dev.ordo.server.http.QueueApi.ApiException;
import dev.ordo.server.http.internal.Instances;
import dev.ordo.server.http.internal.PartitionQueries;
import dev.ordo.server.http.internal.Views;
import dev.ordo.store.HeadPeek;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.StoreReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * {@code GET /v1/namespaces/{ns}/topics/{topic}/peek?n=10}: the next {@code n} ready items of a
 * topic in dispatch order, leasing nothing (issue 15; docs/http-api.md).
 *
 * <ol>
 *   <li>Each partition's head is read from the store of the instance that runs it, by interactive
 *       queries ({@link HeadPeek} over range queries of the index store and key queries of the item
 *       table); the partitions another instance runs are asked of it in one forwarded request each
 *       ({@code &partitions=0,3}, marked as forwarded, never forwarded again).</li>
 *   <li>The heads are merged across partitions as dispatch across partitions orders them: by priority,
 *       then the fresh lane before the backlog lane, then ready time (a slot is a partition's own
 *       count, so it orders only within a partition, where the order is kept as it is).</li>
 *   <li>A partition no instance can answer for now (a rebalance) is named in {@code unavailable};
 *       the others still answer.</li>
 * </ol>
 */
public final class PeekApi {
  static final int DEFAULT_N = 10;
  static final int MAX_N = 1_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Supplier<KafkaStreams> streams;
  private final Instances instances;
  private final int partitions;

  public PeekApi(Supplier<KafkaStreams> streams, Instances instances, int partitions) {
    this.streams = streams;
    this.instances = instances;
    this.partitions = partitions;
  }

  public void register(HttpRouter router) {
    router.get("/v1/namespaces/{ns}/topics/{topic}/peek", ApiAnswers.guarded(this::peek));
  }

  /** A peeked item with what the merge across partitions orders it by. */
  private record Peeked(int priority, boolean backlog, long readyAt, int partition, long offset, Map<String, Object> view) {}

  private static final Comparator<Peeked> DISPATCH_ORDER = Comparator.comparingInt(Peeked::priority)
      .thenComparing(Peeked::backlog).thenComparingLong(Peeked::readyAt);

  HttpResponse peek(HttpRequest request) throws ApiException {
    String ns = request.pathParam("ns");
    String topic = request.pathParam("topic");
    int n = intParam(request, "n", DEFAULT_N, 1, MAX_N);
    Set<Integer> asked = partitionsParam(request);
    KafkaStreams ks = streams.get();
    if (ks == null) {
      throw new ApiException(503, "the queue is not running yet");
    }
    Map<HostInfo, List<Integer>> byOwner = new LinkedHashMap<>();
    List<Integer> unavailable = new ArrayList<>();
    for (int p : asked) {
      try {
        byOwner.computeIfAbsent(instances.owner(ks, PriorityStore.STORE_NAME, p), h -> new ArrayList<>()).add(p);
      } catch (ApiException e) {
        unavailable.add(p);
      }
    }
    List<List<Peeked>> heads = new ArrayList<>();
    for (Map.Entry<HostInfo, List<Integer>> e : byOwner.entrySet()) {
      if (e.getKey().equals(instances.self())) {
        for (int p : e.getValue()) {
          try {
            heads.add(local(ks, ns, topic, p, n));
          } catch (ApiException failed) {
            unavailable.add(p);
          }
        }
      } else if (request.header(Instances.FORWARDED_FROM).isPresent()) {
        unavailable.addAll(e.getValue()); // moved since the forwarding instance looked: not a second hop
      } else {
        heads.addAll(forwarded(e.getKey(), ns, topic, e.getValue(), n, unavailable, request));
      }
    }
    List<Map<String, Object>> items = merge(heads, n).stream().map(Peeked::view).toList();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("items", items);
    body.put("unavailable", unavailable.stream().sorted().toList());
    return HttpResponse.ok(body).withHeader(Instances.SERVED_BY, Instances.address(instances.self()));
  }

  /** The first {@code n} of partition heads each in dispatch order, merged across partitions. */
  static List<Peeked> merge(List<List<Peeked>> heads, int n) {
    List<Peeked> all = new ArrayList<>();
    // Stable: each partition's own order (slots) is kept among its items of equal rank.
    TreeMap<Integer, List<Peeked>> byPartition = new TreeMap<>();
    for (List<Peeked> h : heads) {
      for (Peeked p : h) {
        byPartition.computeIfAbsent(p.partition(), k -> new ArrayList<>()).add(p);
      }
    }
    List<Integer> at = new ArrayList<>();
    List<List<Peeked>> lists = new ArrayList<>(byPartition.values());
    for (int i = 0; i < lists.size(); i++) {
      at.add(0);
    }
    while (all.size() < n) {
      int best = -1;
      for (int i = 0; i < lists.size(); i++) {
        if (at.get(i) < lists.get(i).size() && (best < 0
            || DISPATCH_ORDER.compare(lists.get(i).get(at.get(i)), lists.get(best).get(at.get(best))) < 0)) {
          best = i;
        }
      }
      if (best < 0) {
        break;
      }
      all.add(lists.get(best).get(at.get(best)));
      at.set(best, at.get(best) + 1);
    }
    return all;
  }

  private List<Peeked> local(KafkaStreams ks, String ns, String topic, int partition, int n) throws ApiException {
    List<Peeked> out = new ArrayList<>();
    try {
      for (HeadPeek.Entry e : HeadPeek.first(reader(ks, partition), ns, topic, n)) {
        out.add(peeked(partition, e.offset(), e.item()));
      }
    } catch (Failed f) {
      throw f.cause;
    }
    return out;
  }

  private static Peeked peeked(int partition, long offset, StoredItem item) {
    Map<String, Object> view = Views.stored(new ItemId(partition, offset).toString(), item);
    view.put("lane", item.getSidelined() ? "backlog" : "fresh");
    view.put("readyAtMs", item.getReadyAt());
    return new Peeked(item.getItem().getPriority(), item.getSidelined(), item.getReadyAt(), partition, offset, view);
  }

  /** An ApiException through {@link HeadPeek.Reader}, which cannot throw checked exceptions. */
  private static final class Failed extends RuntimeException {
    final ApiException cause;

    Failed(ApiException cause) {
      super(cause.getMessage(), null, false, false);
      this.cause = cause;
    }
  }

  private static HeadPeek.Reader reader(KafkaStreams ks, int partition) {
    return new HeadPeek.Reader() {
      @Override
      public List<byte[]> indexRange(byte[] from, byte[] to, int max) {
        StateQueryRequest<KeyValueIterator<Bytes, byte[]>> q = StateQueryRequest.inStore(PriorityStore.INDEX_STORE_NAME)
            .withQuery(RangeQuery.<Bytes, byte[]>withRange(Bytes.wrap(from), Bytes.wrap(to)))
            .withPartitions(Set.of(partition))
            .requireActive();
        List<byte[]> keys = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = PartitionQueries.result(ks, q, partition)) {
          while (keys.size() < max && it.hasNext()) {
            KeyValue<Bytes, byte[]> kv = it.next();
            keys.add(kv.key.get());
          }
        } catch (ApiException e) {
          throw new Failed(e);
        }
        return keys;
      }

      @Override
      public StoredItem item(long offset) {
        return StoreReader.item((store, key) -> {
          StateQueryRequest<byte[]> q = StateQueryRequest.inStore(store)
              .withQuery(KeyQuery.<Bytes, byte[]>withKey(key))
              .withPartitions(Set.of(partition))
              .requireActive();
          try {
            return PartitionQueries.result(ks, q, partition);
          } catch (ApiException e) {
            throw new Failed(e);
          }
        }, offset);
      }
    };
  }

  /** The heads of {@code asked} partitions read by {@code owner}; partitions it could not answer join {@code unavailable}. */
  private List<List<Peeked>> forwarded(HostInfo owner, String ns, String topic, List<Integer> asked, int n,
      List<Integer> unavailable, HttpRequest request) {
    String path = "/v1/namespaces/" + pathSegment(ns) + "/topics/" + pathSegment(topic) + "/peek?n=" + n
        + "&partitions=" + asked.stream().map(String::valueOf).collect(Collectors.joining(","));
    HttpResponse answer;
    try {
      answer = instances.forward(owner, path, "partitions " + asked, request);
    } catch (ApiException e) {
      unavailable.addAll(asked);
      return List.of();
    }
    if (answer.status() != 200) {
      unavailable.addAll(asked);
      return List.of();
    }
    try {
      JsonNode body = JSON.readTree((byte[]) answer.body());
      body.path("unavailable").forEach(p -> unavailable.add(p.asInt()));
      Map<Integer, List<Peeked>> byPartition = new TreeMap<>();
      for (JsonNode item : body.path("items")) {
        ItemId id = ItemId.parse(item.path("id").asText());
        @SuppressWarnings("unchecked")
        Map<String, Object> view = JSON.convertValue(item, LinkedHashMap.class);
        byPartition.computeIfAbsent(id.partition(), k -> new ArrayList<>()).add(new Peeked(item.path("priority").asInt(),
            "backlog".equals(item.path("lane").asText()), item.path("readyAtMs").asLong(), id.partition(),
            id.offset(), view));
      }
      return new ArrayList<>(byPartition.values());
    } catch (IOException | IllegalArgumentException e) {
      unavailable.addAll(asked);
      return List.of();
    }
  }

  private static String pathSegment(String name) {
    return java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
  }

  private Set<Integer> partitionsParam(HttpRequest request) {
    Set<Integer> out = new TreeSet<>();
    String text = request.queryParam("partitions").orElse(null);
    if (text == null || text.isBlank()) {
      for (int p = 0; p < partitions; p++) {
        out.add(p);
      }
      return out;
    }
    for (String part : text.split(",")) {
      int p;
      try {
        p = Integer.parseInt(part.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("partitions: not a list of partition numbers: " + text);
      }
      if (p < 0 || p >= partitions) {
        throw new IllegalArgumentException("partitions: " + p + " is not a partition of this cluster (0.."
            + (partitions - 1) + ")");
      }
      out.add(p);
    }
    return out;
  }

  private static int intParam(HttpRequest request, String name, int dflt, int min, int max) {
    String text = request.queryParam(name).orElse(null);
    if (text == null) {
      return dflt;
    }
    int v;
    try {
      v = Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": not a number: " + text);
    }
    if (v < min || v > max) {
      throw new IllegalArgumentException(name + ": must be " + min + ".." + max + ", got " + v);
    }
    return v;
  }
}
