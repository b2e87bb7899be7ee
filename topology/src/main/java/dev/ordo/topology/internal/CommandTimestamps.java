package dev.ordo.topology.internal;

import dev.ordo.api.CommandOrder;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * The time Kafka Streams orders a command by. A partition's task takes the record with the smallest
 * time among the heads of {@code items} and {@code commands}.
 *
 * <ul>
 *   <li>A command counts as its record's timestamp plus a lead: a new item is taken in ahead of
 *       commands up to {@code leadMs} older than it, so a command sent right after an enqueue finds
 *       the item (decisions D25).</li>
 *   <li>A command whose record says it cannot need a new item ({@link CommandOrder}: an ack, a nack,
 *       an extension, a release, a lease consumer's standing demand) counts the same while the intake
 *       is current; but while the newest item read on its partition ({@link IntakeClock}) is more
 *       than the lead older than the wall clock (a burst of enqueues the queue is still taking in), it
 *       counts as just after that item when that is earlier: it goes after the items already read,
 *       not after every item of the burst enqueued before it (decisions D46). Kafka Streams extracts
 *       a record's time when it becomes the head of its partition's queue, so the items read are
 *       those up to the items' head.</li>
 * </ul>
 * The processor reads no command's record timestamp (a command carries its own {@code sentAt});
 * the time extracted here only orders the two partitions (it is also the time of the store writes
 * the command causes, on compacted changelogs: a marked command's may be as old as the newest item
 * read).
 */
public final class CommandTimestamps implements TimestampExtractor {
  private final long leadMs;
  private final IntakeClock intake;
  private final LongSupplier wallClock;

  public CommandTimestamps(long leadMs, IntakeClock intake, LongSupplier wallClock) {
    if (leadMs < 0) {
      throw new IllegalArgumentException("leadMs must be >= 0: " + leadMs);
    }
    this.leadMs = leadMs;
    this.intake = intake;
    this.wallClock = wallClock;
  }

  @Override
  public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
    long time = orderTime(record.timestamp(), partitionTime, leadMs);
    Header order = record.headers().lastHeader(CommandOrder.HEADER);
    if (order == null || !CommandOrder.isFirst(order.value())) {
      return time;
    }
    return afterALaggingIntake(time, intake.newest(record.partition()), wallClock.getAsLong(), leadMs);
  }

  /**
   * The time to order a command by: {@code timestamp + leadMs}, saturating; a record without a valid
   * timestamp (negative) keeps its partition's time, so it neither fails the task nor jumps ahead.
   */
  static long orderTime(long timestamp, long partitionTime, long leadMs) {
    if (timestamp < 0) {
      return Math.max(partitionTime, 0);
    }
    return timestamp > Long.MAX_VALUE - leadMs ? Long.MAX_VALUE : timestamp + leadMs;
  }

  /**
   * A command that cannot need a new item: {@code time} ({@link #orderTime}) while the intake is
   * current, else just after the newest item read ({@code newestItem}, {@link IntakeClock#NONE} for
   * none yet) when that is earlier; the intake lags when its newest item read is more than {@code
   * leadMs} older than {@code now}.
   */
  static long afterALaggingIntake(long time, long newestItem, long now, long leadMs) {
    if (newestItem == IntakeClock.NONE || now - newestItem <= leadMs) {
      return time;
    }
    return Math.min(time, newestItem + 1);
  }
}
