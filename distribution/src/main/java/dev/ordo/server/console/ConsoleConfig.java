package dev.ordo.server.console;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/** The web console's settings (docs/console.md): how often its charts sample the instance's meters, and how far back. */
public final class ConsoleConfig {
  public static final String SAMPLE_INTERVAL_MS_CONFIG = "ordo.console.sample.interval.ms";
  private static final String SAMPLE_INTERVAL_MS_DOC = "How often the console samples this instance's per-topic"
      + " meters (counts, oldest ready age, enqueues, leases, dead letters) for its charts. Shorter: finer charts"
      + " and rates that follow a change sooner, for a little more memory (a sample holds every topic) and a"
      + " registry scan per sample.";
  public static final String HISTORY_MS_CONFIG = "ordo.console.history.ms";
  private static final String HISTORY_MS_DOC = "How far back the console's charts go: samples older than this are"
      + " dropped (an in-process ring; a restart starts it empty). At most 100,000 samples are kept.";

  public static final ConfigDef CONFIG = new ConfigDef()
      .define(SAMPLE_INTERVAL_MS_CONFIG, Type.LONG, 10_000L, Range.between(100, 3_600_000), Importance.LOW,
          SAMPLE_INTERVAL_MS_DOC)
      .define(HISTORY_MS_CONFIG, Type.LONG, 3_600_000L, Range.between(1_000, 7 * 24 * 3_600_000L), Importance.LOW,
          HISTORY_MS_DOC);

  private ConsoleConfig() {}
}
