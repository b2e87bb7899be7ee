package dev.ordo.server.components;

import dev.ordo.client.dlq.DlqJobRunner;
import dev.ordo.server.ServerComponent;
import dev.ordo.server.ServerContext;

/**
 * The dead-letter job runner of this instance ({@link DlqJobRunner}): every {@code ordo server}
 * runs one, and the one owning {@code <cluster>.dlq.state}'s partition works through the redrive
 * and purge jobs; when it stops, another takes over from the jobs' committed progress.
 */
public final class DlqJobsComponent implements ServerComponent {
  private DlqJobRunner runner;

  @Override
  public String name() {
    return "dlq-jobs";
  }

  @Override
  public void start(ServerContext ctx) {
    runner = new DlqJobRunner(ctx.kafkaClientConfig(), ctx.topics().cluster());
    runner.start();
  }

  @Override
  public void close() {
    if (runner != null) {
      runner.close();
    }
  }
}
