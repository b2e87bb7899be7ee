package dev.ordo.server.http;

import dev.ordo.api.ItemId;
import dev.ordo.schema.StoredItem;
import dev.ordo.server.HttpRequest;
import dev.ordo.server.HttpResponse;
import dev.ordo.server.auth.Permission;
import dev.ordo.server.http.QueueApi.ApiException;
import dev.ordo.server.http.internal.Instances;
import dev.ordo.server.http.internal.PartitionQueries;
import dev.ordo.server.http.internal.Views;
import dev.ordo.store.PriorityStore;
import dev.ordo.store.StoreReader;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.StateQueryRequest;
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
  public static final String FORWARDED_FROM = Instances.FORWARDED_FROM;
  /** Response header: the instance ({@code host:port}) whose store answered. */
  public static final String SERVED_BY = Instances.SERVED_BY;

  private final Supplier<KafkaStreams> streams;
  private final Instances instances;
  private final int partitions;

  /**
   * @param streams the running queue's Kafka Streams (null until it runs)
   * @param instances this instance and the way to the others
   * @param partitions the cluster's partition count
   */
  public ItemLookup(Supplier<KafkaStreams> streams, Instances instances, int partitions) {
    this.streams = streams;
    this.instances = instances;
    this.partitions = partitions;
  }

  /** The look-up, answered 403 when the item is in a namespace the caller may not operate. */
  HttpResponse lookup(HttpRequest request) throws ApiException {
    HttpResponse answer = find(request);
    if (answer.status() == 200 && !request.caller().mayEverywhere(Permission.OPERATE)) {
      String namespace = namespaceOf(answer.body());
      if (namespace == null || !request.caller().may(Permission.OPERATE, namespace)) {
        return HttpResponse.error(403, request.caller().missing(Permission.OPERATE, "namespace '" + namespace
            + "' (item " + request.pathParam("id") + ")"));
      }
    }
    return answer;
  }

  private static String namespaceOf(Object body) {
    if (body instanceof java.util.Map<?, ?> m) {
      return m.get("namespace") instanceof String s ? s : null;
    }
    if (body instanceof byte[] bytes) {
      try {
        com.fasterxml.jackson.databind.JsonNode n = HttpResponse.JSON.readTree(bytes).get("namespace");
        return n == null || !n.isTextual() ? null : n.asText();
      } catch (java.io.IOException e) {
        return null;
      }
    }
    return null;
  }

  private HttpResponse find(HttpRequest request) throws ApiException {
    ItemId id = ItemId.parse(request.pathParam("id"));
    if (id.partition() >= partitions) {
      return HttpResponse.error(404, "unknown item " + id + ": the cluster has no partition " + id.partition()
          + " (" + partitions + " partitions)");
    }
    KafkaStreams ks = streams.get();
    if (ks == null) {
      throw new ApiException(503, "the queue is not running yet");
    }
    HostInfo owner = instances.owner(ks, PriorityStore.STORE_NAME, id.partition());
    if (owner.equals(instances.self())) {
      return local(ks, id);
    }
    instances.refuseSecondHop(request.header(FORWARDED_FROM), owner, "a look-up of partition " + id.partition());
    return instances.forward(owner, "/v1/items/" + id, "partition " + id.partition(), request);
  }

  private HttpResponse local(KafkaStreams ks, ItemId id) throws ApiException {
    int p = id.partition();
    StoredItem item;
    try {
      item = StoreReader.item((store, key) -> {
        StateQueryRequest<byte[]> query = StateQueryRequest.inStore(store)
            .withQuery(KeyQuery.<Bytes, byte[]>withKey(key))
            .withPartitions(Set.of(p))
            .requireActive();
        try {
          return PartitionQueries.result(ks, query, p);
        } catch (ApiException e) {
          throw new QueryFailed(e);
        }
      }, id.offset());
    } catch (QueryFailed e) {
      throw e.cause;
    }
    String self = Instances.address(instances.self());
    if (item == null) {
      return HttpResponse.error(404, "unknown item " + id + ": not in partition " + p
          + "'s store (acked, cancelled, expired, dead-lettered, not processed yet or never enqueued)")
          .withHeader(SERVED_BY, self);
    }
    return HttpResponse.ok(Views.stored(id.toString(), item)).withHeader(SERVED_BY, self);
  }

  /** An {@link ApiException} of a query, carried out of the store reader's lookup. */
  private static final class QueryFailed extends RuntimeException {
    final ApiException cause;

    QueryFailed(ApiException cause) {
      super(cause);
      this.cause = cause;
    }
  }
}
