package dev.ordo.client;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;

/** A clock the test moves: it stands still unless {@link #advance} is called; sleeping moves it. */
public final class ManualTime implements Time {
  private final AtomicLong nanos;

  public ManualTime(long startMs) {
    this.nanos = new AtomicLong(startMs * 1_000_000L);
  }

  public void advance(long ms) {
    nanos.addAndGet(ms * 1_000_000L);
  }

  @Override
  public long milliseconds() {
    return nanos.get() / 1_000_000L;
  }

  @Override
  public long nanoseconds() {
    return nanos.get();
  }

  @Override
  public void sleep(long ms) {
    advance(ms);
  }

  @Override
  public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) throws InterruptedException {
    synchronized (obj) {
      while (!condition.get() && milliseconds() < deadlineMs) {
        obj.wait(1);
      }
    }
  }
}
