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
    java.util.Map<String, Object> config = ctx.kafkaClientConfig();
    // ordo.schema.registry.url: dead letters are Confluent-framed when the queue has a registry.
    config.putAll(ctx.settings().ordo(dev.ordo.client.QueueClientConfig.configDef()));
    runner = new DlqJobRunner(config, ctx.topics().cluster());
    runner.start();
  }

  @Override
  public void close() {
    if (runner != null) {
      runner.close();
    }
  }
}
