package dev.ordo.client.dlq;

import java.util.List;

/**
 * One page of a dead-letter listing, in {@code <cluster>.dlq} order (partition, then offset).
 *
 * @param nextCursor pass it to get the next page; null when the listing reached the end of the topic
 * @param scanned the dead letters read for this page, selected or not: a page may be short (even
 *     empty) with a cursor when a selective filter met many others, so the answer stays quick
 */
public record DeadLetterPage(List<DeadLetterInfo> deadLetters, String nextCursor, long scanned) {
  public DeadLetterPage {
    deadLetters = List.copyOf(deadLetters);
  }
}
