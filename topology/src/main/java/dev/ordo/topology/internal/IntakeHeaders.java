package dev.ordo.topology.internal;

import dev.ordo.api.Dedup;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;

/**
 * What an items record's Ordo headers ask of the intake (decisions D57): its deduplication ID
 * ({@value Dedup#HEADER}) and who waits for the queue's answer ({@value Dedup#REPLY_HEADER}). The last
 * of each counts, as Kafka's {@code lastHeader}. A malformed ID (empty, too long, not printable
 * ASCII) is ignored, as is a malformed reply address: the item is taken in as an item without it,
 * never refused for a header a producer of its own may have set.
 *
 * @param dedupId the deduplication ID, or null
 * @param replyTo where the answer goes, or null
 */
record IntakeHeaders(String dedupId, Dedup.ReplyTo replyTo) {

  /** The Ordo headers among {@code headers}, or null when they ask nothing (most items). */
  static IntakeHeaders of(Header[] headers) {
    String dedupId = null;
    Dedup.ReplyTo replyTo = null;
    for (Header h : headers) {
      String key = h.key();
      if (!key.startsWith("ordo.")) {
        continue;
      }
      if (key.equals(Dedup.HEADER)) {
        String id = h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
        dedupId = Dedup.problem(Dedup.HEADER, id) == null ? id : null;
      } else if (key.equals(Dedup.REPLY_HEADER)) {
        replyTo = Dedup.parseReplyTo(h.value());
      }
    }
    return dedupId == null && replyTo == null ? null : new IntakeHeaders(dedupId, replyTo);
  }
}
