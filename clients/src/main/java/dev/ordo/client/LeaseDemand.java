package dev.ordo.client;

import dev.ordo.client.internal.CreditSplit;
import dev.ordo.client.internal.InFlightLimit;
import dev.ordo.schema.Requester;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link LeaseConsumer} asks each partition it owns for: the partition's share of the window's
 * free slots ({@link CreditSplit}), as a demand whose limit counts what the partition granted so far, so
 * that items still in transit are not asked for again (flow control, decisions D50). Every refresh
 * interval each owned partition's demand is sent again (replacing), and at once when the window shrank or
 * the owned partitions changed; a finished item's slot goes back to its partition at the next turn. On
 * close, and for partitions handed over, the demand is cancelled. Poll thread only.
 */
final class LeaseDemand {
  private static final Logger log = LoggerFactory.getLogger(LeaseDemand.class);

  private final QueueClient client;
  private final String requesterId;
  private final String namespace;
  private final List<String> topicNames;
  private final InFlightLimit window;
  private final long refreshMs;
  private final long validityMs;
  /** Items this consumer runs, by the partition that granted them (its workers count them down). */
  private final Map<Integer, AtomicInteger> inFlightByPartition;
  /** Items the queue granted this consumer, by the partition that granted them. */
  private final Map<Integer, Long> receivedFrom = new HashMap<>();
  private int rotation;
  private long nextResync;
  private boolean cancelled;

  LeaseDemand(QueueClient client, String requesterId, String namespace, List<String> topicNames, InFlightLimit window,
      long refreshMs, long validityMs, Map<Integer, AtomicInteger> inFlightByPartition) {
    this.client = client;
    this.requesterId = requesterId;
    this.namespace = namespace;
    this.topicNames = topicNames;
    this.window = window;
    this.refreshMs = refreshMs;
    this.validityMs = validityMs;
    this.inFlightByPartition = inFlightByPartition;
  }

  /** The queue's partition {@code partition} granted this consumer an item. */
  void received(int partition) {
    receivedFrom.merge(partition, 1L, Long::sum);
  }

  /** The owned partitions changed: every demand goes out again at the next turn. */
  void refreshSoon() {
    nextResync = 0;
  }

  /**
   * A turn of the poll thread: while running, the slots of the items finished since the last turn
   * ({@code finished}, by partition) go back to their partitions and every demand is refreshed when due;
   * once closing, the demand is cancelled.
   *
   * @param owned the partitions this consumer owns
   * @param running how many items this consumer holds
   */
  void turn(long now, boolean open, boolean closing, Collection<Integer> owned, int running,
      Map<Integer, Integer> finished) {
    if (window.advance(System.nanoTime())) {
      nextResync = now; // a smaller window: take back the demand beyond it now
    }
    if (open && !finished.isEmpty()) {
      Map<Integer, Integer> credits = credits(owned, running);
      finished.keySet().forEach(p -> {
        if (credits.containsKey(p)) {
          demand(p, credits.get(p));
        }
      });
    }
    if (open && now >= nextResync) {
      rotation++;
      credits(owned, running).forEach(this::demand);
      nextResync = now + refreshMs;
    } else if (closing && !cancelled) {
      cancel(owned);
      cancelled = true;
    }
  }

  /** Cancels the demand on {@code partitions}. */
  void cancel(Collection<Integer> partitions) {
    for (int p : partitions) {
      client.sendDemand(p, new Requester(requesterId, p), namespace, Map.of(), validityMs, true);
    }
  }

  private Map<Integer, Integer> credits(Collection<Integer> owned, int running) {
    Map<Integer, Integer> inFlight = new HashMap<>();
    inFlightByPartition.forEach((p, n) -> inFlight.put(p, n.get()));
    return CreditSplit.credits(window.limit(), new ArrayList<>(owned), inFlight, running, rotation);
  }

  private Map<String, Integer> counts(int n) {
    Map<String, Integer> counts = new HashMap<>();
    if (n > 0) {
      topicNames.forEach(t -> counts.put(t, n));
    }
    return counts;
  }

  /**
   * Asks a partition for {@code credit} more items than it granted this consumer: the demand's limit is
   * what came from it plus the credit, so items still in transit count against it (decisions D50).
   */
  private void demand(int partition, int credit) {
    long received = receivedFrom.getOrDefault(partition, 0L);
    client.sendFlowDemand(partition, new Requester(requesterId, partition), namespace, counts(credit), validityMs,
            received + credit, received)
        .whenComplete((m, e) -> {
          if (e != null) {
            log.warn("Could not send the demand of {} to partition {}; retrying at the next refresh", requesterId,
                partition, e);
          }
        });
  }
}
