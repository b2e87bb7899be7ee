package dev.ordo.store;

/** A due timer: which item, of which kind, due when. */
public record TimerEntry(TimerKind kind, long dueAt, long offset) {}
