package dev.ordo.bench;

import java.net.URI;

/**
 * Starts an Ordo server (queue, delay tiers and HTTP API) on the bench's Kafka cluster for the
 * {@code http} scenario. The HTTP API lives in the distribution; the bench's scenarios do not start
 * servers themselves, so {@code ordo bench} (BenchCommand) hands the bench a way to start one.
 */
@FunctionalInterface
public interface HttpFrontEnd {
  /** Starts a server of cluster {@code cluster} with {@code partitions} partitions; it answers HTTP once returned. */
  Running start(String bootstrapServers, String cluster, int partitions) throws Exception;

  /** A running server. */
  interface Running extends AutoCloseable {
    /** Its HTTP address, e.g. {@code http://127.0.0.1:41234}. */
    URI address();

    /** Its SQS endpoint (docs/sqs.md), e.g. {@code http://127.0.0.1:41235}, or null when it runs none. */
    default URI sqsAddress() {
      return null;
    }

    /** The API token its clients send ({@code Authorization: Bearer}), or null when it asks for none. */
    default String token() {
      return null;
    }

    @Override
    void close();
  }
}
