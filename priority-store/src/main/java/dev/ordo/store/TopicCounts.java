package dev.ordo.store;

/** How many items of one topic are in each state on one partition. */
public record TopicCounts(String namespace, String topic, long ready, long delayed, long leased, long parked) {
  public long total() {
    return ready + delayed + leased + parked;
  }
}
