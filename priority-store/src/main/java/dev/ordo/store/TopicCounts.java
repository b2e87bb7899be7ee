package dev.ordo.store;

/** How many items of one topic are in each state on one partition. */
public record TopicCounts(String namespace, String topic, long ready, long delayed, long leased, long parked,
    long overflow) {
  public long total() {
    return ready + delayed + leased + parked + overflow;
  }

  /** Items waiting to be worked on, admitted: ready, delayed and parked (what a backlog limit counts). */
  public long waiting() {
    return ready + delayed + parked;
  }
}
