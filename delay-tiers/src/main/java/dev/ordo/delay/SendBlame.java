package dev.ordo.delay;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tier records whose own send failed a transaction, and how often: {@link OutgoingDecider} sends
 * such a record to the dlq next time (see {@link Failure}). Kept until the record's transaction commits
 * or its partition is revoked or lost; a restore keeps it, so the retry of the record knows.
 */
final class SendBlame {
  private static final Logger log = LoggerFactory.getLogger(SendBlame.class);

  /** How often a record's own send failed a transaction (0: a suspect, sent alone next time), and why. */
  record Failure(int count, String error) {}

  private final String topic;
  private final String dlqTopic;
  private final Map<TopicPartition, Map<Long, Failure>> failures = new HashMap<>();

  SendBlame(String topic, String dlqTopic) {
    this.topic = topic;
    this.dlqTopic = dlqTopic;
  }

  /** The failures of the record at {@code tp}@{@code offset}, or null if none. */
  Failure failure(TopicPartition tp, long offset) {
    return failures.getOrDefault(tp, Map.of()).get(offset);
  }

  /** A suspect is sent alone, flushed before and after, so an error of its send is its own. */
  boolean isSuspect(TopicPartition tp, long offset) {
    Failure failure = failure(tp, offset);
    return failure != null && failure.count() == 0;
  }

  /**
   * Remembers the records whose own send failed the transaction; true if there were any, or if it
   * cannot tell which: a transactional producer fails every batch not sent yet with the error of the
   * batch that failed, so several sends may carry one record's error. Those become suspects, sent
   * alone (flushed before and after) on the next try, which tells the faulty one from the others.
   */
  boolean blame(List<ForwardSend> sends) {
    List<ForwardSend> failed = new ArrayList<>();
    ForwardSend firstAlone = null;
    for (ForwardSend send : sends) {
      if (isOwnFault(send.error)) {
        failed.add(send);
        if (send.alone && firstAlone == null) {
          firstAlone = send;
        }
      }
    }
    ForwardSend culprit = firstAlone != null ? firstAlone : failed.size() == 1 ? failed.get(0) : null;
    if (culprit == null) {
      for (ForwardSend send : failed) {
        failures.computeIfAbsent(send.tp, k -> new HashMap<>())
            .putIfAbsent(send.offset, new Failure(0, send.error.toString()));
      }
      if (!failed.isEmpty()) {
        log.info("forwarder of {}: {} records of an aborted transaction failed with one error ({}); "
            + "retrying them one by one", topic, failed.size(), failed.get(0).error.toString());
      }
      return !failed.isEmpty();
    }
    Exception e = culprit.error;
    Map<Long, Failure> ofPartition = failures.computeIfAbsent(culprit.tp, k -> new HashMap<>());
    Failure previous = ofPartition.get(culprit.offset);
    ofPartition.put(culprit.offset, new Failure(previous == null ? 1 : previous.count() + 1, e.toString()));
    log.warn("forwarder of {}: record {}@{} could not be written ({}); it goes to {}", topic, culprit.tp,
        culprit.offset, e.toString(), dlqTopic);
    return true;
  }

  /** The sends' transaction committed: their records are done with. */
  void committed(List<ForwardSend> sends) {
    for (ForwardSend send : sends) {
      Map<Long, Failure> ofPartition = failures.get(send.tp);
      if (ofPartition != null) {
        ofPartition.remove(send.offset);
      }
    }
  }

  /** Forgets revoked or lost partitions: their next owner starts afresh. */
  void forget(Collection<TopicPartition> partitions) {
    failures.keySet().removeAll(partitions);
  }

  /** Errors that come from the record itself (its size, its topic), not from the cluster's state. */
  static boolean isOwnFault(Exception e) {
    return e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException
        || e instanceof InvalidRecordException || e instanceof InvalidTopicException
        || e instanceof TopicAuthorizationException;
  }
}
