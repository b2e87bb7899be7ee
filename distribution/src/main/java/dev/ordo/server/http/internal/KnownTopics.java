package dev.ordo.server.http.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;

/**
 * Whether a topic exists, from the cluster's topic list (never a metadata request that could create
 * it), cached: a name in the cached list is answered at once; another one reads the list again, at
 * most once per {@code refresh}, so a topic created a moment ago is found on the next look.
 */
public final class KnownTopics implements Predicate<String> {
  private final Admin admin;
  private final long refreshNanos;
  private volatile Set<String> names = Set.of();
  private volatile long readAt = Long.MIN_VALUE / 2;

  public KnownTopics(Admin admin, Duration refresh) {
    this.admin = admin;
    this.refreshNanos = refresh.toNanos();
  }

  @Override
  public boolean test(String topic) {
    if (names.contains(topic)) {
      return true;
    }
    synchronized (this) {
      if (names.contains(topic)) {
        return true;
      }
      if (System.nanoTime() - readAt >= refreshNanos) {
        try {
          names = admin.listTopics(new ListTopicsOptions().listInternal(false).timeoutMs(10_000)).names()
              .get(15, TimeUnit.SECONDS);
          readAt = System.nanoTime();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while listing the cluster's topics", e);
        } catch (Exception e) {
          throw new org.apache.kafka.common.KafkaException("cannot list the cluster's topics: " + e.getMessage(), e);
        }
      }
      return names.contains(topic);
    }
  }
}
