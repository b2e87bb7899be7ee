package dev.ordo.topology.internal;

import dev.ordo.schema.NamespacePolicy;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Pause and resume (docs/queue.md, "Paused topics"): dispatch leases no item of a topic while the
 * topic or its whole namespace is paused in the namespace's policy record. Nothing else changes:
 * items are taken in, fall due and expire, and leases already out end as ever. The pause lives on
 * {@code <cluster>.namespaces}, so it holds on every partition, across restarts and failovers.
 *
 * <p>The gate remembers the topics whose open demand it held back, so that a timer run offers them
 * to dispatch again once they are resumed ({@link #resumed}): a long poll waiting on a paused topic
 * is served after a resume without new items or a refreshed demand. Pure: it reads the policies it
 * is given and keeps only that set, forgotten topic by topic once nobody waits for them.
 */
final class PauseGate {
  private final Policies policies;
  private final Set<TopicRef> held = new LinkedHashSet<>();

  PauseGate(Policies policies) {
    this.policies = policies;
  }

  /** True when {@code policy} pauses {@code topic}: the namespace as a whole, or the topic on its own. */
  static boolean paused(NamespacePolicy policy, String topic) {
    return policy != null && (policy.getPausedAt() != null
        || policy.getPausedTopics() != null && policy.getPausedTopics().containsKey(topic));
  }

  /**
   * True when dispatch must not lease items of the topic now; then the topic is remembered, so that
   * the demand held back is offered again on resume.
   */
  boolean holds(String namespace, String topic) {
    if (!paused(policies.policy(namespace), topic)) {
      return false;
    }
    held.add(new TopicRef(namespace, topic));
    return true;
  }

  /**
   * The held topics that are no longer paused and still {@code wanted} by an open demand, to offer to
   * dispatch; those resumed or no longer wanted are forgotten, those still paused and wanted kept.
   */
  List<TopicRef> resumed(Predicate<TopicRef> wanted) {
    if (held.isEmpty()) {
      return List.of();
    }
    List<TopicRef> out = new ArrayList<>();
    for (Iterator<TopicRef> it = held.iterator(); it.hasNext(); ) {
      TopicRef t = it.next();
      if (!wanted.test(t)) {
        it.remove();
      } else if (!paused(policies.policy(t.namespace()), t.topic())) {
        it.remove();
        out.add(t);
      }
    }
    return out;
  }

  /** Topics held back now (for tests). */
  int heldTopics() {
    return held.size();
  }
}
