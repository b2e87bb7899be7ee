package dev.ordo.faults.history;

/**
 * A promise of the queue that a history shows broken: which rule, about which item (null for a rule
 * about the whole run), and what the history shows, in a sentence.
 */
public record Violation(Rule rule, String itemKey, String detail) {
  /** The rules {@link HistoryChecker} checks, each with the short name reports use. */
  public enum Rule {
    /** An acknowledged at-least-once item that ended nowhere: not acked, dead-lettered, expired or queued. */
    LOST("lost"),
    /** An at-most-once item delivered twice. */
    AMO_TWICE("amo-twice"),
    /** Two leases of one item alive at once (exactly-once runs only). */
    OVERLAPPING_LEASES("overlapping-leases"),
    /** A delivery before the item's due time, or before a nack's delay ended. */
    EARLY("early"),
    /** A delivery after the item's time to live. */
    AFTER_TTL("after-ttl"),
    /** A dead letter its reason does not explain. */
    UNEXPLAINED_DEAD_LETTER("unexplained-dead-letter"),
    /** A worse item handed out while a better one had long been ready on the same partition. */
    PRIORITY_ORDER("priority-order"),
    /** The servers' count of acked items differs from the history's (complete histories only). */
    COUNTS("counts");

    private final String label;

    Rule(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  @Override
  public String toString() {
    return rule.label() + (itemKey == null ? "" : " [" + itemKey + "]") + ": " + detail;
  }
}
