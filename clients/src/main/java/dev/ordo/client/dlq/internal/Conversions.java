package dev.ordo.client.dlq.internal;

import dev.ordo.client.dlq.DeadLetterFilter;
import dev.ordo.client.dlq.DeadLetterId;
import dev.ordo.client.dlq.DeadLetterInfo;
import dev.ordo.client.dlq.DeadLetterSelection;
import dev.ordo.client.dlq.DeadLetterStatus;
import dev.ordo.client.dlq.DlqJobView;
import dev.ordo.schema.AttemptRecord;
import dev.ordo.schema.DeadLetter;
import dev.ordo.schema.DlqCancel;
import dev.ordo.schema.DlqFilter;
import dev.ordo.schema.DlqJob;
import dev.ordo.schema.DlqMark;
import dev.ordo.schema.DlqMarkState;
import dev.ordo.schema.Item;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Between the Avro records of the dead-letter topics and the client's own types. */
public final class Conversions {
  static {
    dev.ordo.serde.AvroCodec.trustOrdoSchemas(); // builders read schema defaults before any codec may have loaded
  }

  private Conversions() {}

  public static DlqFilter toRecord(DeadLetterFilter f) {
    return DlqFilter.newBuilder()
        .setNamespace(f.namespace())
        .setTopic(f.topic())
        .setReasons(List.copyOf(f.reasons()))
        .setFromMs(f.from() == null ? null : f.from().toEpochMilli())
        .setToMs(f.to() == null ? null : f.to().toEpochMilli())
        .build();
  }

  public static DeadLetterFilter fromRecord(DlqFilter f) {
    if (f == null) {
      return DeadLetterFilter.ANY;
    }
    return new DeadLetterFilter(f.getNamespace(), f.getTopic(), java.util.Set.copyOf(f.getReasons()),
        f.getFromMs() == null ? null : Instant.ofEpochMilli(f.getFromMs()),
        f.getToMs() == null ? null : Instant.ofEpochMilli(f.getToMs()));
  }

  /** Whether {@code filter} selects {@code letter}; a record that is no dead letter only by the empty filter. */
  public static boolean matches(DeadLetterFilter filter, DeadLetter letter) {
    if (letter == null) {
      return filter.isAny();
    }
    Item item = letter.getItem();
    return filter.matches(item == null ? null : item.getNamespace(),
        item == null ? letter.getSourceTopic() : item.getTopic(), letter.getReason().name(), letter.getDeadAt());
  }

  public static DeadLetterStatus status(Optional<DlqMark> mark) {
    return mark.map(m -> m.getState() == DlqMarkState.PURGED ? DeadLetterStatus.PURGED : DeadLetterStatus.REDRIVEN)
        .orElse(DeadLetterStatus.DEAD);
  }

  /**
   * The operator's view of a dead letter.
   *
   * @param letter null when the record is not a dead letter (it is then shown as MALFORMED with its raw value)
   */
  public static DeadLetterInfo info(DeadLetterId id, DeadLetter letter, byte[] rawValue, long timestampMs,
      Optional<DlqMark> mark) {
    String redrivenTo = mark.map(DlqMark::getRedrivenTo).orElse(null);
    String job = mark.map(DlqMark::getJob).orElse(null);
    Instant handledAt = mark.map(m -> Instant.ofEpochMilli(m.getAt())).orElse(null);
    if (letter == null) {
      return new DeadLetterInfo(id, status(mark), "MALFORMED", "not a DeadLetter record", null, null, null, null,
          null, null, null, null, dev.ordo.api.ItemHeaders.EMPTY, 0, null, List.of(), null, Instant.ofEpochMilli(timestampMs), null, rawValue,
          redrivenTo, job, handledAt);
    }
    Item item = letter.getItem();
    List<DeadLetterInfo.Attempt> history = letter.getHistory().stream().map(Conversions::attempt).toList();
    return new DeadLetterInfo(id, status(mark), letter.getReason().name(), letter.getDetail(), letter.getItemId(),
        item == null ? null : item.getNamespace(),
        item == null ? null : item.getTopic(),
        item == null ? null : item.getPriority(),
        item == null ? null : bytes(item.getPayload()),
        item == null ? null : bytes(item.getMetadata()),
        item == null ? null : item.getGroupKey(),
        item == null ? null : item.getTraceId(),
        item == null ? dev.ordo.api.ItemHeaders.EMPTY : dev.ordo.api.ItemHeaders.fromRecords(item.getHeaders()),
        letter.getAttempts(), letter.getLastError(), history,
        new DeadLetterInfo.Source(letter.getSourceTopic(), letter.getSourcePartition(), letter.getSourceOffset()),
        Instant.ofEpochMilli(letter.getDeadAt()), bytes(letter.getRawKey()), bytes(letter.getRawValue()),
        redrivenTo, job, handledAt);
  }

  private static DeadLetterInfo.Attempt attempt(AttemptRecord a) {
    return new DeadLetterInfo.Attempt(a.getAttempt(), Instant.ofEpochMilli(a.getLeasedAt()),
        Instant.ofEpochMilli(a.getEndedAt()), a.getOutcome(), a.getError());
  }

  public static DlqJobView view(DlqJob j) {
    return view(j, Optional.empty());
  }

  /**
   * The operator's view of a job: an unfinished one with a cancel request is CANCELLING (the runner
   * stops it before its next batch).
   */
  public static DlqJobView view(DlqJob j, Optional<DlqCancel> cancel) {
    DeadLetterSelection selection = j.getIds().isEmpty() ? DeadLetterSelection.filter(fromRecord(j.getFilter()))
        : DeadLetterSelection.ids(j.getIds().stream().map(DeadLetterId::parse).toList());
    long scanned = j.getScanned();
    DlqJobView.Status status = cancel.isPresent() && !JobCancels.finished(j.getStatus())
        ? DlqJobView.Status.CANCELLING : DlqJobView.Status.valueOf(j.getStatus().name());
    return new DlqJobView(j.getId(), DlqJobView.Kind.valueOf(j.getKind().name()), status, Instant.ofEpochMilli(j.getCreatedAt()),
        Instant.ofEpochMilli(j.getUpdatedAt()), j.getFinishedAt() == null ? null : Instant.ofEpochMilli(j.getFinishedAt()),
        j.getError(), selection, j.getTargetNamespace(), j.getTargetTopic(), j.getPriority(), j.getRatePerSecond(),
        j.getDelayMs() == null ? null : Duration.ofMillis(j.getDelayMs()),
        scanned + JobRanges.remaining(j.getRanges()), scanned, j.getHandled(), j.getSkipped(),
        cancel.map(c -> Instant.ofEpochMilli(c.getRequestedAt())).orElse(null));
  }

  static byte[] bytes(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    ByteBuffer d = b.duplicate();
    byte[] out = new byte[d.remaining()];
    d.get(out);
    return out;
  }
}
