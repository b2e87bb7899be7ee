package dev.ordo.client;

/**
 * Whose a delivered item is, for a {@link LeaseConsumer} (step 6 of its protocol): its own when the queue
 * sent it to this consumer; one to adopt when it was in transit to another member of the same group as
 * that member handed the partition over cleanly (so that member never read it), and its lease has time
 * left; else none of its business (a crashed member's items return when their leases run out). Pure:
 * time is an argument.
 */
final class LeaseDeliveries {
  /** Foreign items this close to their lease's end are not adopted: they are about to come back anyway. */
  static final long ADOPT_MIN_LEASE_LEFT_MS = 500;

  enum Route { OWN, ADOPT, SKIP }

  private final String requesterId;
  private final String memberPrefix;

  /** {@code requesterId}: this consumer's, {@code <groupId>/m-<id>}. */
  LeaseDeliveries(String requesterId, String groupId) {
    this.requesterId = requesterId;
    this.memberPrefix = groupId + "/m-";
  }

  /**
   * @param to the requester the item was delivered to
   * @param handedOverCleanly whether the delivery's partition came to this consumer with a hand-over mark
   * @param leaseExpiresAt when the item's lease ends
   * @param deliveredAt the delivery record's timestamp
   */
  Route route(String to, boolean handedOverCleanly, long leaseExpiresAt, long deliveredAt, long now) {
    if (to.equals(requesterId)) {
      return Route.OWN;
    }
    // Only what a member handed over cleanly was never read by it; anything else may be in its hands.
    if (isGroupMember(to) && handedOverCleanly && leaseExpiresAt - deliveredAt > 0
        && leaseExpiresAt > now + ADOPT_MIN_LEASE_LEFT_MS) {
      return Route.ADOPT;
    }
    return Route.SKIP;
  }

  /** Another member of this group: {@code <group>/m-<id>}, with no further '/'. */
  private boolean isGroupMember(String id) {
    return id.startsWith(memberPrefix) && id.indexOf('/', memberPrefix.length()) < 0;
  }
}
