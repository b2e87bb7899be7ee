package dev.ordo.demo;

import java.time.Duration;
import java.util.List;

/**
 * The size and shape of an {@code ordo demo} run.
 *
 * @param items items to enqueue
 * @param topics topics of the namespace {@code demo} they are spread over
 * @param maxPriority priorities are 0 to this
 * @param delayedShare share of items enqueued with a delay of 200 ms to {@code maxDelay}
 * @param failOnceShare share whose handler fails once (retried with the consumer's backoff)
 * @param retryLaterShare share whose handler asks twice to be retried later
 * @param poisonItems items whose handler always fails, to end in the dead-letter topic
 * @param maxWork longest simulated work per attempt
 * @param lease the items' lease (short, so a lost item comes back fast)
 * @param maxInFlight the consumer's parallel handlers
 * @param seed of the workload's random choices
 * @param timeout how long to wait for every item to finish
 */
public record DemoSettings(int items, List<String> topics, int maxPriority, double delayedShare, Duration maxDelay,
    double failOnceShare, double retryLaterShare, int poisonItems, Duration maxWork, Duration lease, int maxInFlight,
    long seed, Duration timeout) {

  public static final String NAMESPACE = "demo";

  public DemoSettings {
    topics = List.copyOf(topics);
    if (items < 1 || topics.isEmpty() || maxPriority < 0 || poisonItems < 0 || poisonItems > items) {
      throw new IllegalArgumentException("bad demo settings");
    }
    if (maxDelay.toMillis() <= 200) {
      throw new IllegalArgumentException("maxDelay must be over 200 ms");
    }
  }

  /** What {@code ordo demo} runs: under a minute on a loaded 2-core machine, start-up included. */
  public static DemoSettings standard() {
    return new DemoSettings(500, List.of("emails", "invoices", "thumbnails"), 9, 0.10, Duration.ofSeconds(3),
        0.08, 0.03, 1, Duration.ofMillis(10), Duration.ofSeconds(5), 64, 42, Duration.ofSeconds(45));
  }

  /** A few items of every kind, for tests. */
  public static DemoSettings tiny() {
    return new DemoSettings(24, List.of("emails", "invoices"), 3, 0.25, Duration.ofSeconds(1),
        0.2, 0.1, 1, Duration.ofMillis(5), Duration.ofSeconds(5), 8, 7, Duration.ofSeconds(45));
  }
}
