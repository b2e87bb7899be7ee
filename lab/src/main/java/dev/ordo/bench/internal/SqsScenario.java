package dev.ordo.bench.internal;

import dev.ordo.bench.HttpFrontEnd;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * The queue as an SQS client sees it (issue 47): an {@code ordo server}'s SQS endpoint on the bench's
 * cluster, driven by the AWS SDK for Java v2 (JSON protocol, MD5s checked) from {@code workers}
 * threads sharing one client (its connection pool holds a connection per thread).
 *
 * <ol>
 *   <li><b>send</b>: the threads send {@code items} messages with SendMessageBatch, 10 a call; items/s
 *       from the first call to the last answer;</li>
 *   <li><b>work</b>: once every message is ready, each thread loops ReceiveMessage (up to 10,
 *       WaitTimeSeconds 0) and DeleteMessageBatch of what came, until all are deleted; items/s from
 *       the first receive to the last delete. The http scenario's throughput phase is the same loop
 *       over Ordo's own HTTP API.</li>
 * </ol>
 */
public final class SqsScenario {
  private static final int BATCH = 10;

  private SqsScenario() {}

  public record Result(int partitions, double sendPerSec, double workPerSec) {}

  public static Result run(BenchKafka kafka, HttpFrontEnd frontEnd, String cluster, int partitions, int items,
      int payloadBytes, int workers) {
    try (HttpFrontEnd.Running server = frontEnd.start(kafka.bootstrapServers(), cluster, partitions)) {
      URI endpoint = server.sqsAddress();
      if (endpoint == null) {
        throw new IllegalStateException("the server runs no SQS endpoint (ordo.sqs.port=0?)");
      }
      if (server.token() != null) {
        throw new IllegalStateException("the sqs scenario signs with no SQS credential: run it without API tokens");
      }
      try (SqsClient sqs = SqsClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
          .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
          .build()) { // the SDK's default HTTP client pools up to 50 connections, one per worker here
        String url = sqs.createQueue(b -> b.queueName("bench")).queueUrl();
        String body = "x".repeat(Math.max(1, payloadBytes));
        double sendPerSec = send(sqs, url, body, items, workers);
        awaitReady(sqs, url, items);
        double workPerSec = work(sqs, url, items, workers);
        return new Result(partitions, sendPerSec, workPerSec);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.toString(), e);
    } finally {
      kafka.deleteTopicsStartingWith(cluster + ".", cluster + "-");
    }
  }

  private static double send(SqsClient sqs, String url, String body, int items, int workers)
      throws InterruptedException {
    AtomicInteger claimed = new AtomicInteger();
    AtomicInteger sent = new AtomicInteger();
    List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    long t0 = System.nanoTime();
    runAll(workers, "bench-sqs-send", () -> {
      try {
        int from;
        while ((from = claimed.getAndAdd(BATCH)) < items) {
          List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
          for (int i = from; i < Math.min(items, from + BATCH); i++) {
            entries.add(SendMessageBatchRequestEntry.builder().id("m" + i).messageBody(body).build());
          }
          SendMessageBatchResponse r = sqs.sendMessageBatch(b -> b.queueUrl(url).entries(entries));
          if (!r.failed().isEmpty()) {
            throw new IllegalStateException("SendMessageBatch failed entries: " + r.failed());
          }
          sent.addAndGet(r.successful().size());
        }
      } catch (RuntimeException e) {
        failures.add(e);
      }
    });
    double seconds = (System.nanoTime() - t0) / 1e9;
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
    return sent.get() / seconds;
  }

  /** Waits until the queue counts every message as ready (the topics table refreshes every second or so). */
  private static void awaitReady(SqsClient sqs, String url, int items) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      String n = sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings("ApproximateNumberOfMessages"))
          .attributesAsStrings().get("ApproximateNumberOfMessages");
      if (n != null && Long.parseLong(n) >= items) {
        return;
      }
      Thread.sleep(100); // a poll of the counts with a deadline, not a wait for an event
    }
    throw new IllegalStateException("the SQS queue did not count " + items + " ready messages within 120 s");
  }

  private static double work(SqsClient sqs, String url, int items, int workers) throws InterruptedException {
    AtomicInteger deleted = new AtomicInteger();
    List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    long t0 = System.nanoTime();
    runAll(workers, "bench-sqs-work", () -> {
      try {
        while (deleted.get() < items && System.nanoTime() < deadline) {
          List<Message> got = sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(BATCH).waitTimeSeconds(0))
              .messages();
          if (got.isEmpty()) {
            continue;
          }
          List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
          for (int i = 0; i < got.size(); i++) {
            entries.add(DeleteMessageBatchRequestEntry.builder().id("d" + i).receiptHandle(got.get(i).receiptHandle())
                .build());
          }
          DeleteMessageBatchResponse r = sqs.deleteMessageBatch(b -> b.queueUrl(url).entries(entries));
          deleted.addAndGet(r.successful().size());
        }
      } catch (RuntimeException e) {
        failures.add(e);
      }
    });
    double seconds = (System.nanoTime() - t0) / 1e9;
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
    if (deleted.get() < items) {
      throw new IllegalStateException("SQS workers deleted " + deleted.get() + " of " + items + " messages in 300 s");
    }
    return items / seconds;
  }

  private static void runAll(int threads, String name, Runnable body) throws InterruptedException {
    Thread[] all = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      all[i] = new Thread(body, name + "-" + i);
      all[i].start();
    }
    for (Thread t : all) {
      t.join(Duration.ofMinutes(6).toMillis());
    }
  }
}
