package dev.ordo.server.http.internal;

import dev.ordo.server.http.QueueApi.ApiException;
import dev.ordo.server.internal.Messages;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;

/** An interactive query of one partition's store on this instance, its failures as HTTP errors. */
public final class PartitionQueries {
  private PartitionQueries() {}

  /**
   * Runs {@code query} (restricted to {@code partition}, active task only) and returns its result.
   *
   * @throws ApiException 503 when the partition is not (or no longer) here or not ready, 500 on other failures
   */
  public static <R> R result(KafkaStreams ks, StateQueryRequest<R> query, int partition) throws ApiException {
    StateQueryResult<R> result;
    try {
      result = ks.query(query);
    } catch (StreamsException | IllegalStateException e) {
      throw new ApiException(503, "cannot query partition " + partition + " now: " + Messages.oneLine(e));
    }
    QueryResult<R> r = result.getPartitionResults().get(partition);
    if (r == null) {
      throw new ApiException(503, "partition " + partition + " is not on this instance any more; retry");
    }
    if (r.isFailure()) {
      int status = switch (r.getFailureReason()) {
        case NOT_ACTIVE, NOT_PRESENT, DOES_NOT_EXIST, NOT_UP_TO_BOUND -> 503;
        default -> 500;
      };
      throw new ApiException(status, "query of partition " + partition + "'s store failed (" + r.getFailureReason()
          + "): " + Messages.oneLine(new IllegalStateException(r.getFailureMessage())));
    }
    return r.getResult();
  }
}
