package dev.ordo.client.dlq;

/** What became of a dead letter: still dead, sent back by a redrive, or purged for good. */
public enum DeadLetterStatus {
  DEAD, REDRIVEN, PURGED
}
