package dev.ordo.server.internal;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether Kafka answers, asked once a {@link #interval} on a thread of its own (decisions D26): a
 * {@code DescribeCluster} to any broker, with a short timeout. The HTTP API answers its requests
 * 503 at once while the last probe failed, instead of holding them until a Kafka client's own
 * timeouts (a minute for a producer without metadata) and {@code /health} says so. Reachable until a
 * probe fails.
 */
public final class KafkaReachability implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaReachability.class);

  private final Admin admin;
  private final Duration interval;
  private final Duration timeout;
  private final CountDownLatch closed = new CountDownLatch(1);
  private final Thread thread;
  /** 0 while reachable; else when the first failed probe of the current outage was sent. */
  private volatile long unreachableSince;
  private volatile String lastError = "";

  public KafkaReachability(Map<String, Object> clientConfig, Duration interval, Duration timeout) {
    Properties props = new Properties();
    props.putAll(clientConfig);
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, "ordo-kafka-probe");
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    this.admin = Admin.create(props);
    this.interval = interval;
    this.timeout = timeout;
    this.thread = new Thread(this::run, "ordo-kafka-probe");
    this.thread.setDaemon(true);
  }

  public KafkaReachability start() {
    thread.start();
    return this;
  }

  /** True unless the last probe failed. */
  public boolean reachable() {
    return unreachableSince == 0;
  }

  /** Why Kafka is unreachable, and since how long, for an error message; empty while reachable. */
  public String describe() {
    long since = unreachableSince;
    if (since == 0) {
      return "";
    }
    return "Kafka has not answered for " + Math.max(0, System.currentTimeMillis() - since) + " ms (" + lastError + ")";
  }

  private void run() {
    try {
      do {
        long sentAt = System.currentTimeMillis();
        try {
          admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
              .clusterId().get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
          if (unreachableSince != 0) {
            LOG.info("Kafka answers again after {} ms", System.currentTimeMillis() - unreachableSince);
          }
          unreachableSince = 0;
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          lastError = Messages.oneLine(e);
          if (unreachableSince == 0) {
            unreachableSince = sentAt;
            LOG.warn("Kafka does not answer: {}", lastError);
          }
        }
      } while (!closed.await(interval.toMillis(), TimeUnit.MILLISECONDS));
    } catch (InterruptedException e) {
      // closing
    }
  }

  @Override
  public void close() {
    closed.countDown();
    thread.interrupt();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    admin.close(Duration.ofSeconds(2));
  }
}
