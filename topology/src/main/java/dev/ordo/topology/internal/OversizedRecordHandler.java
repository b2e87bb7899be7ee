package dev.ordo.topology.internal;

import dev.ordo.topology.QueueMetrics;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue's production exception handler: a record Kafka refuses as too large (a dead letter
 * larger than the broker or producer takes, say) is logged with the input record it came of
 * ({@code topic-partition@offset}) and counted ({@code produce.too_large}). Under at-least-once it is
 * then skipped and the partition goes on; the input record stays in its topic, where the offset
 * finds it. Under exactly-once a skip cannot help (the producer has failed the transaction already,
 * decisions D21): the handler fails the task as Kafka Streams' default does, and the processor's
 * own bound on dead letters ({@code ordo.dlq.max.record.bytes}) is what keeps that from happening.
 * Every other error is handled as Kafka Streams' default handler does (retry what is retriable,
 * fail the rest).
 */
public final class OversizedRecordHandler implements ProductionExceptionHandler {
  /** The streams config key under which {@code QueueService} hands the handler its metrics (an object, not a string). */
  public static final String METRICS_CONFIG = "ordo.internal.queue.metrics";

  private static final Logger log = LoggerFactory.getLogger(OversizedRecordHandler.class);

  private QueueMetrics metrics = new QueueMetrics();
  private boolean exactlyOnce;

  @Override
  public void configure(Map<String, ?> configs) {
    if (configs.get(METRICS_CONFIG) instanceof QueueMetrics m) {
      metrics = m;
    }
    exactlyOnce = String.valueOf(configs.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).startsWith("exactly_once");
  }

  @Override
  public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
    if (exception instanceof RecordTooLargeException) {
      metrics.increment(QueueMetrics.PRODUCE_TOO_LARGE);
      String source = context.topic() + "-" + context.partition() + "@" + context.offset();
      int bytes = (record.key() == null ? 0 : record.key().length) + (record.value() == null ? 0 : record.value().length);
      if (!exactlyOnce) {
        log.error("A record of {} bytes for {}, written for the input record {}, is too large for Kafka ({}); skipped,"
            + " and the partition goes on (the input record is still at {})", bytes, record.topic(), source,
            exception.getMessage(), source);
        return Response.resume();
      }
      log.error("A record of {} bytes for {}, written for the input record {}, is too large for Kafka ({}); under"
          + " exactly-once it cannot be skipped: the task fails. Lower ordo.dlq.max.record.bytes below the producer's"
          + " max.request.size and the topic's max.message.bytes, or raise those", bytes, record.topic(), source,
          exception.getMessage());
      return Response.fail();
    }
    return exception instanceof RetriableException ? Response.retry() : Response.fail();
  }
}
