package dev.ordo.topology.internal;

import dev.ordo.schema.NamespacePolicy;

/** The namespace policies a planner decides with: a read-only view, null for a namespace without one. */
@FunctionalInterface
public interface Policies {
  Policies NONE = namespace -> null;

  NamespacePolicy policy(String namespace);
}
