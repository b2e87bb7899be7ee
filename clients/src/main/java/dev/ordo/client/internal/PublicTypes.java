package dev.ordo.client.internal;

import dev.ordo.api.ItemHeaders;
import dev.ordo.api.ItemId;
import dev.ordo.client.CommandOutcome;
import dev.ordo.client.GiveBackReason;
import dev.ordo.client.QueueItem;
import dev.ordo.client.Semantics;
import dev.ordo.schema.DeliveredItem;
import dev.ordo.schema.DeliverySemantics;
import dev.ordo.schema.Outcome;
import dev.ordo.schema.ReturnReason;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The boundary between the wire's Avro records (dev.ordo.schema) and the clients' public types: the
 * public API takes and returns only the latter, the topics carry only the former.
 */
public final class PublicTypes {
  private PublicTypes() {}

  /** The item as its caller sees it. */
  public static QueueItem item(DeliveredItem d) {
    return new QueueItem(ItemId.parse(d.getItemId()), d.getLeaseId(), d.getNamespace(), d.getTopic(), d.getPriority(),
        d.getAttempt(), bytes(d.getPayload()), d.getMetadata() == null ? null : bytes(d.getMetadata()),
        Instant.ofEpochMilli(d.getEnqueuedAt()), Instant.ofEpochMilli(d.getLeaseExpiresAt()),
        semantics(d.getSemantics()), d.getGroupKey(), d.getTraceId(), ItemHeaders.fromRecords(d.getHeaders()));
  }

  /** {@link #item} of each, in order. */
  public static List<QueueItem> items(List<DeliveredItem> delivered) {
    List<QueueItem> out = new ArrayList<>(delivered.size());
    for (DeliveredItem d : delivered) {
      out.add(item(d));
    }
    return out;
  }

  /** The outcome as its caller sees it. */
  public static CommandOutcome outcome(Outcome o) {
    return new CommandOutcome(ItemId.parse(o.getItemId()), CommandOutcome.Command.valueOf(o.getCommand().name()),
        CommandOutcome.Result.valueOf(o.getResult().name()), o.getDetail(),
        o.getLeaseExpiresAt() == null ? null : Instant.ofEpochMilli(o.getLeaseExpiresAt()),
        o.getDeadLetterReason() == null ? null : o.getDeadLetterReason().name(), o.getForbiddenNamespace());
  }

  public static Semantics semantics(DeliverySemantics s) {
    return s == null ? Semantics.AT_LEAST_ONCE : Semantics.valueOf(s.name());
  }

  /** Null stays null: the namespace's default. */
  public static DeliverySemantics semantics(Semantics s) {
    return s == null ? null : DeliverySemantics.valueOf(s.name());
  }

  public static ReturnReason reason(GiveBackReason r) {
    return ReturnReason.valueOf(r.name());
  }

  /** The buffer's bytes: its array itself when it is exactly that (as decoded records' are), else a copy. */
  static byte[] bytes(ByteBuffer buffer) {
    if (buffer.hasArray() && buffer.arrayOffset() == 0 && buffer.position() == 0
        && buffer.remaining() == buffer.array().length) {
      return buffer.array();
    }
    ByteBuffer b = buffer.duplicate();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }
}
