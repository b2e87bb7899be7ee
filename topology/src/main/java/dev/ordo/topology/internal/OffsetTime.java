package dev.ordo.topology.internal;

import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;

/**
 * The machine's clock set off by a fixed amount, for fault runs ({@code ordo.clock.offset.ms}): the wall
 * clock Kafka Streams gives the queue (its processors' {@code now} and wall-clock punctuations) runs
 * {@code offsetMs} ahead, or behind when negative. Monotonic time is the machine's.
 */
public final class OffsetTime implements Time {
  private final long offsetMs;

  public OffsetTime(long offsetMs) {
    this.offsetMs = offsetMs;
  }

  @Override
  public long milliseconds() {
    return Time.SYSTEM.milliseconds() + offsetMs;
  }

  @Override
  public long nanoseconds() {
    return Time.SYSTEM.nanoseconds();
  }

  @Override
  public void sleep(long ms) {
    Time.SYSTEM.sleep(ms);
  }

  @Override
  public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) throws InterruptedException {
    Time.SYSTEM.waitObject(obj, condition, deadlineMs - offsetMs);
  }
}
