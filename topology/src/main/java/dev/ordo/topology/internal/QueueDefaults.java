package dev.ordo.topology.internal;

/**
 * Defaults for fields an item leaves empty, and the threshold from which a wait leaves the store
 * for the delay tiers ({@code Long.MAX_VALUE}: never, all waits stay in the timer index).
 */
public record QueueDefaults(long leaseMs, int maxAttempts, Long ttlMs, long parkAfterMs) {}
