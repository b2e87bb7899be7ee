package dev.ordo.server.http;

import dev.ordo.api.ItemId;
import dev.ordo.schema.StoredItem;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.http.QueueApi.ApiException;
import dev.ordo.server.http.internal.Views;
import dev.ordo.server.internal.Messages;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.StoreReader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;
import org.apache.kafka.streams.state.HostInfo;

/**
 * {@code GET /v1/items/{id}}: an item's state, read from the store of the instance that owns the
 * item's partition, with Kafka Streams interactive queries.
 *
 * <ol>
 *   <li>The ID names the partition ({@code <partition>-<offset>}); Kafka Streams' metadata says
 *       which instance runs that partition's task, by the {@code application.server} address each
 *       instance advertises (its HTTP address).</li>
 *   <li>This instance: an IQv2 {@link KeyQuery} on {@value PriorityStore#STORE_NAME}, partition
 *       only, active task only; the value is decoded into the item's state.</li>
 *   <li>Another instance: the request is forwarded to it once, marked with
 *       {@value #FORWARDED_FROM}; an instance that gets a forwarded request for a partition it
 *       does not own (the partition moved meanwhile) answers 503 rather than forwarding again.</li>
 *   <li>No instance (a rebalance is under way), or the owner is unreachable: 503 with
 *       {@code Retry-After}.</li>
 * </ol>
 * Every answer read from a store names the instance that read it in {@value #SERVED_BY}.
 *
 * <p>The store is read as the stream thread left it, which under exactly-once may include changes
 * of a transaction not yet committed (Kafka Streams' interactive queries read uncommitted state);
 * an item enqueued a moment ago may not be there yet (404) until its partition's task has processed it.
 */
public final class ItemLookup {
  /** Request header of a forwarded look-up: the address of the instance that forwarded it. */
  public static final String FORWARDED_FROM = "Ordo-Forwarded-From";
  /** Response header: the instance ({@code host:port}) whose store answered. */
  public static final String SERVED_BY = "Ordo-Served-By";

  private static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(10);

  private final Supplier<KafkaStreams> streams;
  private final HostInfo self;
  private final int partitions;
  private final HttpClient http;

  /**
   * @param streams the running queue's Kafka Streams (null until it runs)
   * @param self this instance's {@code application.server}
   * @param partitions the cluster's partition count
   */
  public ItemLookup(Supplier<KafkaStreams> streams, HostInfo self, int partitions) {
    this.streams = streams;
    this.self = self;
    this.partitions = partitions;
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(3))
        .build();
  }

  HttpResponse lookup(HttpRequest request) throws ApiException {
    ItemId id = ItemId.parse(request.pathParam("id"));
    if (id.partition() >= partitions) {
      return HttpResponse.error(404, "unknown item " + id + ": the cluster has no partition " + id.partition()
          + " (" + partitions + " partitions)");
    }
    KafkaStreams ks = streams.get();
    if (ks == null) {
      throw new ApiException(503, "the queue is not running yet");
    }
    Bytes key = StoreReader.itemKey(id.offset());
    StreamPartitioner<Bytes, Void> partitioner = (topic, k, v, n) -> Optional.of(Set.of(id.partition()));
    KeyQueryMetadata meta;
    try {
      meta = ks.queryMetadataForKey(PriorityStore.STORE_NAME, key, partitioner);
    } catch (StreamsException | IllegalStateException e) {
      throw new ApiException(503, "the queue cannot answer queries now: " + Messages.oneLine(e));
    }
    HostInfo owner = meta == null ? null : meta.activeHost();
    if (owner == null || KeyQueryMetadata.NOT_AVAILABLE.equals(meta) || owner.port() < 0) {
      throw new ApiException(503, "no instance runs partition " + id.partition() + " right now (rebalancing); retry");
    }
    if (owner.equals(self)) {
      return local(ks, id, key);
    }
    Optional<String> from = request.header(FORWARDED_FROM);
    if (from.isPresent()) {
      throw new ApiException(503, "instance " + address(self) + " got a look-up forwarded by " + from.get()
          + " but partition " + id.partition() + " is on " + address(owner) + " (it moved); retry");
    }
    return forward(owner, id);
  }

  private HttpResponse local(KafkaStreams ks, ItemId id, Bytes key) throws ApiException {
    int p = id.partition();
    StateQueryRequest<byte[]> query = StateQueryRequest.inStore(PriorityStore.STORE_NAME)
        .withQuery(KeyQuery.<Bytes, byte[]>withKey(key))
        .withPartitions(Set.of(p))
        .requireActive();
    StateQueryResult<byte[]> result;
    try {
      result = ks.query(query);
    } catch (StreamsException | IllegalStateException e) {
      throw new ApiException(503, "cannot query partition " + p + " now: " + Messages.oneLine(e));
    }
    QueryResult<byte[]> r = result.getPartitionResults().get(p);
    if (r == null) {
      throw new ApiException(503, "partition " + p + " is not on this instance any more; retry");
    }
    if (r.isFailure()) {
      int status = switch (r.getFailureReason()) {
        case NOT_ACTIVE, NOT_PRESENT, DOES_NOT_EXIST, NOT_UP_TO_BOUND -> 503;
        default -> 500;
      };
      throw new ApiException(status, "query of partition " + p + "'s store failed (" + r.getFailureReason() + "): "
          + Messages.oneLine(new IllegalStateException(r.getFailureMessage())));
    }
    byte[] value = r.getResult();
    if (value == null) {
      return HttpResponse.error(404, "unknown item " + id + ": not in partition " + p
          + "'s store (acked, cancelled, expired, dead-lettered, not processed yet or never enqueued)")
          .withHeader(SERVED_BY, address(self));
    }
    StoredItem item = StoreReader.decodeItem(value);
    return HttpResponse.ok(Views.stored(id.toString(), item)).withHeader(SERVED_BY, address(self));
  }

  private HttpResponse forward(HostInfo owner, ItemId id) throws ApiException {
    URI uri = URI.create("http://" + hostForUri(owner.host()) + ":" + owner.port() + "/v1/items/" + id);
    java.net.http.HttpRequest forwarded = java.net.http.HttpRequest.newBuilder(uri)
        .timeout(FORWARD_TIMEOUT)
        .header(FORWARDED_FROM, address(self))
        .GET()
        .build();
    java.net.http.HttpResponse<byte[]> answer;
    try {
      answer = http.send(forwarded, java.net.http.HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new ApiException(503, "instance " + address(owner) + ", which runs partition " + id.partition()
          + ", did not answer: " + Messages.oneLine(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(503, "interrupted while forwarding to " + address(owner));
    }
    String type = answer.headers().firstValue("content-type").orElse(HttpResponse.APPLICATION_JSON);
    HttpResponse response = new HttpResponse(answer.statusCode(), answer.body(), type, java.util.Map.of());
    Optional<String> servedBy = answer.headers().firstValue(SERVED_BY);
    if (servedBy.isPresent()) {
      response = response.withHeader(SERVED_BY, servedBy.get());
    }
    Optional<String> retry = answer.headers().firstValue("retry-after");
    if (retry.isPresent()) {
      response = response.withHeader("Retry-After", retry.get());
    }
    return response;
  }

  private static String address(HostInfo h) {
    return hostForUri(h.host()) + ":" + h.port();
  }

  private static String hostForUri(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }
}
