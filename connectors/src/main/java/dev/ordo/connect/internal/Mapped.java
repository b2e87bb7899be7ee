package dev.ordo.connect.internal;

import dev.ordo.client.EnqueueRequest;

/** What {@link RecordMapper} made of one record: an item to enqueue, or why the record is bad. */
public sealed interface Mapped {
  record Item(EnqueueRequest request) implements Mapped {
  }

  /** A bad record; {@code reason} names the setting and the record's field or header involved. */
  record Rejected(String reason) implements Mapped {
  }
}
