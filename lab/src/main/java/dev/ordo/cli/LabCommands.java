package dev.ordo.cli;

import java.util.List;

/**
 * The lab's commands of {@code ordo}: {@code bench} (with its fault modes). OrdoMain finds this class
 * through {@code META-INF/services/dev.ordo.cli.ExtraCommands} when the lab is on the class path, as
 * {@code ./ordo} puts it in a checkout (decisions 0064).
 */
public final class LabCommands implements ExtraCommands {
  @Override
  public List<Class<?>> commands() {
    return List.of(BenchCommand.class);
  }
}
