package dev.ordo.client.stream;

/**
 * What a {@link StreamConsumer} did since it started.
 *
 * @param handled records whose handler returned normally
 * @param failed handler runs that threw (each attempt counts)
 * @param retried retry copies durably written (to a delay tier, or to the retry topic when the backoff
 *     was shorter than the shortest tier)
 * @param deadLettered dead letters durably written
 * @param clogs how many times the clog guard stopped the stream
 * @param probes records run as probes while clogged
 * @param reopened failed records neither retried nor dead-lettered because the stream was clogged:
 *     they were fetched and run again
 * @param running handlers running or waiting for a worker now
 * @param state the clog guard's state now
 */
public record StreamConsumerStats(long handled, long failed, long retried, long deadLettered, long clogs, long probes,
    long reopened, int running, ClogState state) {}
