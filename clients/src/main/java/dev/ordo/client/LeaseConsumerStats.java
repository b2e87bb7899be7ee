package dev.ordo.client;

/**
 * What a {@link LeaseConsumer} did since it started.
 *
 * @param delivered items it started a handler for (including adopted ones)
 * @param adopted items in transit to a group member that handed its partition over, taken over
 * @param acked acks the queue applied
 * @param ackRefused acks not applied (lease lost meanwhile) or not answered
 * @param nacked nacks the queue applied, dead-lettering ones included
 * @param deadLettered nacks that sent the item to the dead-letter topic
 * @param released items given back unused: beyond capacity, or left when closing
 * @param leaseLost handlers interrupted because their lease was lost
 * @param heartbeats lease extensions the queue applied
 * @param running handlers running now
 * @param window how many items it asks the queue to hold leased to it now: {@code max.in.flight}, or
 *     fewer while more would only queue ({@link LeaseConsumer#window})
 * @param emptyDequeues polls that brought no item while the consumer was idle (decisions D58)
 * @param busyRatio the fraction of its handler slots' time spent running handlers over the last
 *     {@code ordo.client.busy.window.ms}: near 1 saturated, near 0 spare capacity (decisions D58)
 */
public record LeaseConsumerStats(long delivered, long adopted, long acked, long ackRefused, long nacked,
    long deadLettered, long released, long leaseLost, long heartbeats, int running, int window, long emptyDequeues,
    double busyRatio) {}
