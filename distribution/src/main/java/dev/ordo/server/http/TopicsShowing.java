package dev.ordo.server.http;

import dev.ordo.client.QueueClient;
import dev.ordo.client.TopicActivity;
import dev.ordo.server.http.QueueApi.ApiException;
import java.time.Duration;
import java.util.List;

/**
 * A namespace's topics from the topics table, for a request that names a topic: the table lags the
 * queue by its stats interval (1 s) and a commit, so a topic whose first items were enqueued a moment
 * ago is not a misspelt one (a pause or purge right after an enqueue got a 404 under load).
 */
final class TopicsShowing {
  /** How long a request naming a topic the topics table does not show yet waits for it before a 404. */
  static final Duration TOPIC_SHOW_WAIT = Duration.ofSeconds(2);

  private TopicsShowing() {}

  /**
   * The namespace's topics from the topics table, waiting up to {@link #TOPIC_SHOW_WAIT} for
   * {@code topic} (or, when null, any topic of the namespace) to show.
   */
  static List<TopicActivity> topicsShowing(QueueClient client, String namespace, String topic) throws ApiException {
    long deadline = System.nanoTime() + TOPIC_SHOW_WAIT.toNanos();
    while (true) {
      List<TopicActivity> topics = ApiAnswers.await(client.activeTopics(namespace), ApiAnswers.SLACK,
          "reading the topics table");
      boolean shows = topic == null ? !topics.isEmpty() : topics.stream().anyMatch(t -> t.topic().equals(topic));
      if (shows || System.nanoTime() >= deadline) {
        return topics;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return topics;
      }
    }
  }
}
