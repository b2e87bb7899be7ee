package dev.ordo.delay;

import dev.ordo.delay.internal.DeadLetters;
import dev.ordo.delay.internal.ForwardPlanner;
import dev.ordo.delay.internal.ForwardPlanner.Step;
import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.DelayedRecord;
import dev.ordo.serde.OrdoSerdes;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.record.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a forwarder does with one record of its tier at {@code now}, as an {@link Outgoing}: wait, produce
 * it to a tier or its target, dead-letter it, or skip it. Decides from the record, its send failures so far
 * and whether its target exists; writes nothing (its only state is whether it warned of the timestamp type).
 *
 * <ol>
 *   <li>A record whose own send failed a transaction ({@link SendBlame}) goes to the dlq (INVALID), with its
 *       raw bytes the first time, without them the second; after {@link #MAX_SEND_FAILURES} it is skipped.
 *   <li>A record that is not a {@link DelayedRecord} goes to the dlq (MALFORMED), as does one whose target
 *       topic name is not legal (INVALID).
 *   <li>{@link ForwardPlanner} decides when: later (at the head or held aside), or now to the next tier or,
 *       if its target topic and partition exist, to its target (else to the dlq, INVALID).
 * </ol>
 */
final class OutgoingDecider {
  private static final Logger log = LoggerFactory.getLogger(OutgoingDecider.class);
  static final int MAX_SEND_FAILURES = 3;

  private final DelayTiersConfig config;
  private final String topic;
  private final String dlqTopic;
  private final ForwardPlanner planner;
  private boolean warnedTimestampType;

  OutgoingDecider(DelayTiersConfig config, Duration tier) {
    this.config = config;
    this.topic = config.topics().delayTier(tier);
    this.dlqTopic = config.topics().dlq();
    this.planner = new ForwardPlanner(tier, config.router());
  }

  /** What to do with {@code record} at {@code now}; {@code failure}: its own send failures so far, or null. */
  Outgoing decide(ConsumerRecord<byte[], byte[]> record, SendBlame.Failure failure, TargetTopics targets,
      long now) {
    if (failure != null && failure.count() > 0) {
      if (failure.count() >= MAX_SEND_FAILURES) {
        log.error("forwarder of {}: dropping {}-{}@{}: neither it nor its dead letter could be written: {}",
            topic, record.topic(), record.partition(), record.offset(), failure.error());
        return new Outgoing.Skip();
      }
      boolean withRaw = failure.count() < 2;
      return deadLetter(record, DeadLetterReason.INVALID, "could not write the record: " + failure.error(), withRaw,
          now);
    }
    DelayedRecord envelope;
    try {
      envelope = OrdoSerdes.DELAYED_RECORD.decode(record.value());
    } catch (RuntimeException e) {
      return deadLetter(record, DeadLetterReason.MALFORMED, "not a DelayedRecord: " + e.getMessage(), true, now);
    }
    String problem = DelayedRecords.topicProblem(envelope.getTargetTopic());
    if (problem != null) {
      return deadLetter(record, DeadLetterReason.INVALID, problem, true, now);
    }
    if (record.timestampType() != TimestampType.LOG_APPEND_TIME && !warnedTimestampType) {
      warnedTimestampType = true;
      log.warn("{} has {} timestamps; delay tiers need message.timestamp.type=LogAppendTime, "
          + "or records leave the tier by their producers' clocks", topic, record.timestampType());
    }
    Step step = planner.decide(record.timestamp(), envelope.getDueAt(), now);
    if (step instanceof Step.Wait wait) {
      return new Outgoing.Later(wait.until(), false);
    }
    if (step instanceof Step.Hold hold) {
      return new Outgoing.Later(hold.until(), true);
    }
    Route route = ((Step.Forward) step).route();
    if (route instanceof Route.Tier next) {
      String nextTopic = config.topics().delayTier(next.delay());
      return new Outgoing.Produce(new ProducerRecord<>(nextTopic, null, null, record.key(), record.value()),
          Outgoing.Kind.TIER, 0);
    }
    String targetProblem = targets.problem(envelope.getTargetTopic(), envelope.getTargetPartition());
    if (targetProblem != null) {
      return deadLetter(record, DeadLetterReason.INVALID, targetProblem, true, now);
    }
    return new Outgoing.Produce(DelayedRecords.targetRecord(envelope, now), Outgoing.Kind.TARGET,
        now - envelope.getDueAt());
  }

  private Outgoing deadLetter(ConsumerRecord<byte[], byte[]> record, DeadLetterReason reason, String detail,
      boolean withRaw, long now) {
    log.warn("forwarder of {}: {}-{}@{} to {}: {} {}", topic, record.topic(), record.partition(), record.offset(),
        dlqTopic, reason, detail);
    return new Outgoing.Produce(DeadLetters.record(dlqTopic, record, reason, detail, withRaw, now),
        Outgoing.Kind.DEAD_LETTER, 0);
  }
}
