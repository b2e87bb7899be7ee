package dev.ordo.topology.internal;

/** A topic of a namespace: the key of everything the queue keeps per topic (stats, dispatch, rates). */
public record TopicRef(String namespace, String topic) {}
