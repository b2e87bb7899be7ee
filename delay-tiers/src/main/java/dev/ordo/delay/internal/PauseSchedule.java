package dev.ordo.delay.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The partitions a forwarder has paused and when each is to be resumed, pure (times are passed in).
 * It also bounds the poll timeout by the next resume time, so the poll loop never sleeps past it and
 * never sleeps at all: it only polls, which keeps the consumer in its group.
 *
 * @param <P> the partition type ({@code TopicPartition} in the forwarder)
 */
public final class PauseSchedule<P> {
  private final Map<P, Long> resumeAt = new HashMap<>();

  /** Pauses {@code partition} until {@code until} (epoch ms), replacing an earlier time. */
  public void pause(P partition, long until) {
    resumeAt.put(partition, until);
  }

  /** Removes and returns the partitions whose resume time is not after {@code now}. */
  public List<P> due(long now) {
    List<P> due = new ArrayList<>();
    for (Iterator<Map.Entry<P, Long>> it = resumeAt.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<P, Long> e = it.next();
      if (e.getValue() <= now) {
        due.add(e.getKey());
        it.remove();
      }
    }
    return due;
  }

  /** How long the next poll may block: up to {@code maxMs}, never past the next resume time; 0 if one is due. */
  public long pollTimeout(long now, long maxMs) {
    long timeout = maxMs;
    for (long until : resumeAt.values()) {
      timeout = Math.min(timeout, Math.max(0, until - now));
    }
    return timeout;
  }

  /** Forgets partitions (revoked, lost, newly assigned or rewound): they are no longer paused by us. */
  public void forget(Collection<P> partitions) {
    resumeAt.keySet().removeAll(partitions);
  }

  public boolean isPaused(P partition) {
    return resumeAt.containsKey(partition);
  }

  public Long resumeTime(P partition) {
    return resumeAt.get(partition);
  }

  public int size() {
    return resumeAt.size();
  }
}
