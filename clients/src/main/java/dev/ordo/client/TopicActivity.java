package dev.ordo.client;

import java.time.Duration;
import java.time.Instant;

/**
 * The counts of one topic of a namespace, summed over the queue's partitions, as last published to
 * {@code <cluster>.topics} (at most the queue's stats interval old).
 *
 * @param overflow items over the namespace's admission rate or backlog limit, waiting to be admitted
 * @param headPriority the best (lowest) priority among ready items; null when none is ready
 * @param oldestReadyAt when the oldest ready item became ready; null when none is ready
 * @param oldestReadyAge how long the oldest ready item has waited at the time of the call; zero
 *     when none is ready
 */
public record TopicActivity(String namespace, String topic, long ready, long delayed, long leased, long parked,
    long overflow, Integer headPriority, Instant oldestReadyAt, Duration oldestReadyAge) {

  /** Items in the topic in any state. */
  public long total() {
    return ready + delayed + leased + parked + overflow;
  }
}
