package dev.ordo.cli;

import java.util.List;

/**
 * Commands that a jar on the class path adds to {@code ordo}, found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/dev.ordo.cli.ExtraCommands}). The lab (module {@code lab}, no part of the
 * distribution) adds {@code ordo bench} this way; without it {@code ordo bench} says where to find it
 * (decisions 0064).
 */
public interface ExtraCommands {
  /** The picocli command classes to add (created by the command line's factory), in the order to list them. */
  List<Class<?>> commands();
}
