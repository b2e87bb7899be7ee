package dev.ordo.topology.internal;

import dev.ordo.schema.DeadLetterReason;
import dev.ordo.schema.StoredItem;

/** What to do with an item after a nack or a lost lease: pure values, applied by the processor. */
public sealed interface Decision {
  /** Keep the item, in the state it now has. */
  record Keep(StoredItem item) implements Decision {}

  /** Remove the item and count why (an at-most-once item whose lease ran out). */
  record Drop(String why) implements Decision {}

  /** Remove the item and write it to the dead-letter topic. */
  record DeadLetter(StoredItem item, DeadLetterReason reason, String detail) implements Decision {}
}
