package dev.ordo.server;

import dev.ordo.server.components.DelayTiersComponent;
import dev.ordo.server.components.DlqJobsComponent;
import dev.ordo.server.components.HttpApiComponent;
import dev.ordo.server.components.QueueComponent;
import dev.ordo.server.console.ConsoleComponent;
import java.util.List;

/**
 * The components {@code ordo server} runs, in start order. Add new ones here (the queue topology,
 * the delay-tier forwarders, the dead-letter job runner, the HTTP API over interactive queries...).
 */
public final class Components {
  private Components() {}

  /** A fresh list of fresh components for one server. */
  public static List<ServerComponent> standard() {
    QueueComponent queue = new QueueComponent();
    return List.of(queue, new DelayTiersComponent(), new DlqJobsComponent(), new HttpApiComponent(queue::service),
        new ConsoleComponent(), new dev.ordo.server.components.SqsComponent());
  }
}
