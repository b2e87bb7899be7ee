package dev.ordo.topology.internal;

import dev.ordo.api.Dedup;
import dev.ordo.schema.NamespacePolicy;

/** The deduplication window a namespace's items get (decisions D57). */
final class DedupRules {
  private DedupRules() {}

  /** The policy's {@code dedupWindowMs}, else 5 minutes; 0 (or less): deduplication off for the namespace. */
  static long windowMs(NamespacePolicy policy) {
    Long window = policy == null ? null : policy.getDedupWindowMs();
    return window == null ? Dedup.DEFAULT_WINDOW_MS : Math.max(0, window);
  }
}
