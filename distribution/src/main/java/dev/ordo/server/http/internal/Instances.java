package dev.ordo.server.http.internal;

import dev.ordo.server.HttpResponse;
import dev.ordo.server.http.QueueApi.ApiException;
import dev.ordo.server.internal.Messages;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Which instance runs a partition's task, and a request forwarded to it: what the reads of a
 * partition's store over HTTP (an item look-up, a peek) share. An instance advertises its HTTP
 * address as Kafka Streams' {@code application.server}; a request is forwarded at most once, marked
 * with {@value #FORWARDED_FROM}, and every answer read from a store names its reader in
 * {@value #SERVED_BY}.
 */
public final class Instances {
  /** Request header of a forwarded read: the address of the instance that forwarded it. */
  public static final String FORWARDED_FROM = "Ordo-Forwarded-From";
  /** Response header: the instance ({@code host:port}) whose store answered. */
  public static final String SERVED_BY = "Ordo-Served-By";

  private static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(10);

  private final HostInfo self;
  private final HttpClient http;
  private final String scheme;

  public Instances(HostInfo self) {
    this(self, null);
  }

  /**
   * @param tls the context to reach other instances over HTTPS with (its key, if any, presented as
   *     this instance's client certificate), or null for plain HTTP
   */
  public Instances(HostInfo self, javax.net.ssl.SSLContext tls) {
    this.self = self;
    HttpClient.Builder b = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(3));
    if (tls != null) {
      b.sslContext(tls);
    }
    this.http = b.build();
    this.scheme = tls == null ? "http" : "https";
  }

  public HostInfo self() {
    return self;
  }

  /**
   * The instance whose active task owns {@code partition} of {@code store}.
   *
   * @throws ApiException 503 while no instance does (a rebalance is under way) or metadata is unavailable
   */
  public HostInfo owner(KafkaStreams ks, String store, int partition) throws ApiException {
    StreamPartitioner<Bytes, Void> partitioner = (topic, k, v, n) -> Optional.of(Set.of(partition));
    KeyQueryMetadata meta;
    try {
      meta = ks.queryMetadataForKey(store, Bytes.wrap(new byte[0]), partitioner);
    } catch (StreamsException | IllegalStateException e) {
      throw new ApiException(503, "the queue cannot answer queries now: " + Messages.oneLine(e));
    }
    HostInfo owner = meta == null ? null : meta.activeHost();
    if (owner == null || KeyQueryMetadata.NOT_AVAILABLE.equals(meta) || owner.port() < 0) {
      throw new ApiException(503, "no instance runs partition " + partition + " right now (rebalancing); retry");
    }
    return owner;
  }

  /**
   * Refuses to forward a request that was forwarded here already: the partition moved meanwhile.
   *
   * @throws ApiException 503 when {@code forwardedFrom} is present
   */
  public void refuseSecondHop(Optional<String> forwardedFrom, HostInfo owner, String what) throws ApiException {
    if (forwardedFrom.isPresent()) {
      throw new ApiException(503, "instance " + address(self) + " got " + what + " forwarded by "
          + forwardedFrom.get() + " but it is on " + address(owner) + " (it moved); retry");
    }
  }

  /**
   * GETs {@code pathAndQuery} from {@code owner}, marked as forwarded, with the credentials of
   * {@code request} (its bearer token: the owner checks the caller again); its answer as this
   * instance's.
   */
  public HttpResponse forward(HostInfo owner, String pathAndQuery, String what, dev.ordo.server.HttpRequest request)
      throws ApiException {
    URI uri = URI.create(scheme + "://" + address(owner) + pathAndQuery);
    java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(uri)
        .timeout(FORWARD_TIMEOUT)
        .header(FORWARDED_FROM, address(self))
        .GET();
    request.header("authorization").ifPresent(a -> b.header("Authorization", a));
    java.net.http.HttpRequest forwarded = b.build();
    java.net.http.HttpResponse<byte[]> answer;
    try {
      answer = http.send(forwarded, java.net.http.HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new ApiException(503, "instance " + address(owner) + ", which runs " + what + ", did not answer: "
          + Messages.oneLine(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(503, "interrupted while forwarding to " + address(owner));
    }
    String type = answer.headers().firstValue("content-type").orElse(HttpResponse.APPLICATION_JSON);
    HttpResponse response = new HttpResponse(answer.statusCode(), answer.body(), type, Map.of());
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

  public static String address(HostInfo h) {
    String host = h.host().contains(":") && !h.host().startsWith("[") ? "[" + h.host() + "]" : h.host();
    return host + ":" + h.port();
  }
}
