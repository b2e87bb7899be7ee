package dev.ordo.client;

import dev.ordo.api.ItemId;

/**
 * The queue's answer to an enqueue through {@link QueueClient#enqueue}: the item that holds, and
 * whether the request was a duplicate (decisions D57).
 *
 * @param id the item's ID: the new item's, or when {@code duplicate} the first item's with the same
 *     deduplication ID, which is the one that will be delivered
 * @param duplicate true when the queue refused the request as a duplicate within the window: nothing
 *     new was enqueued
 */
public record Enqueued(ItemId id, boolean duplicate) {}
