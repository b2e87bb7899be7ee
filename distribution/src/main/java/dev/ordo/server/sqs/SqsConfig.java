package dev.ordo.server.sqs;

import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/** The SQS endpoint's settings ({@code ordo.sqs.*}, docs/sqs.md). */
public final class SqsConfig extends AbstractConfig {
  public static final String PORT_CONFIG = "ordo.sqs.port";
  private static final String PORT_DOC = "Port of the SQS-compatible endpoint (--sqs-port), on the HTTP API's address;"
      + " 0: no SQS endpoint; -1: any free port. A port in use stops the server at start.";
  public static final int DEFAULT_PORT = 9324;

  public static final String NAMESPACE_CONFIG = "ordo.sqs.namespace";
  private static final String NAMESPACE_DOC = "Namespace of the queues a request names without one: CreateQueue,"
      + " GetQueueUrl and ListQueues sent to the endpoint's root. A request sent to ENDPOINT/NAMESPACE (an"
      + " endpoint URL with a path) or with QueueOwnerAWSAccountId uses that namespace; a queue URL carries its own.";

  public static final String REGION_CONFIG = "ordo.sqs.region";
  private static final String REGION_DOC = "Region named in queue ARNs (arn:aws:sqs:REGION:NAMESPACE:QUEUE)."
      + " Signatures are checked with the region the client signed with, whatever this says.";

  public static final String PREFETCH_ITEMS_CONFIG = "ordo.sqs.prefetch.items";
  private static final String PREFETCH_ITEMS_DOC = "Most messages one ReceiveMessage's dequeue may lease: the"
      + " receive returns up to its MaxNumberOfMessages (SQS's most: 10) and this server holds the rest for the"
      + " queue's next receives (a prefetch), asking for as many as the queue's receives took in the last"
      + " ordo.sqs.prefetch.max.age.ms. 10 or less: no prefetch, every receive dequeues what it returns.";
  public static final int DEFAULT_PREFETCH_ITEMS = 50;

  public static final String PREFETCH_MAX_AGE_CONFIG = "ordo.sqs.prefetch.max.age.ms";
  private static final String PREFETCH_MAX_AGE_DOC = "Longest a prefetched message is held for a receive, from"
      + " when its dequeue was sent, and never more than a tenth of its queue's VisibilityTimeout nor half of what is"
      + " left of its lease; one not handed out by then is given back unseen (ready again at its place, the receive"
      + " not counted). A message received from the prefetch stays invisible for its queue's VisibilityTimeout less"
      + " up to that much (a receive's own VisibilityTimeout counts from the receive). 0: no prefetch.";
  public static final long DEFAULT_PREFETCH_MAX_AGE_MS = 250;

  public static final String DELETE_COALESCE_CONFIG = "ordo.sqs.delete.coalesce";
  private static final String DELETE_COALESCE_DOC = "Whether concurrent DeleteMessage(Batch) requests share ack"
      + " commands: while one to a partition is on its way, the deletes that come for it go together as the next,"
      + " when it is answered (false: each request sends its own, one per partition it touches).";

  public static final ConfigDef CONFIG = new ConfigDef()
      .define(PORT_CONFIG, Type.INT, DEFAULT_PORT, (name, value) -> {
        int v = (Integer) value;
        if (v < -1 || v > 65535) {
          throw new ConfigException(name, value, "must be -1 (any free port), 0 (off) or a port up to 65535");
        }
      }, Importance.MEDIUM, PORT_DOC)
      .define(NAMESPACE_CONFIG, Type.STRING, "sqs", (name, value) -> {
        String problem = dev.ordo.api.Names.problem("namespace", (String) value);
        if (problem != null || ((String) value).contains(":")) {
          throw new ConfigException(name, value, problem != null ? problem : "a namespace with ':' cannot be in an ARN");
        }
      }, Importance.MEDIUM, NAMESPACE_DOC)
      .define(REGION_CONFIG, Type.STRING, "us-east-1", new ConfigDef.NonEmptyStringWithoutControlChars(),
          Importance.LOW, REGION_DOC)
      .define(PREFETCH_ITEMS_CONFIG, Type.INT, DEFAULT_PREFETCH_ITEMS, ConfigDef.Range.between(0, 1_000),
          Importance.LOW, PREFETCH_ITEMS_DOC)
      .define(PREFETCH_MAX_AGE_CONFIG, Type.LONG, DEFAULT_PREFETCH_MAX_AGE_MS, ConfigDef.Range.between(0, 60_000),
          Importance.LOW, PREFETCH_MAX_AGE_DOC)
      .define(DELETE_COALESCE_CONFIG, Type.BOOLEAN, true, Importance.LOW, DELETE_COALESCE_DOC);

  public SqsConfig(Map<?, ?> originals) {
    super(CONFIG, originals, false);
  }

  public int port() {
    return getInt(PORT_CONFIG);
  }

  public String namespace() {
    return getString(NAMESPACE_CONFIG);
  }

  public String region() {
    return getString(REGION_CONFIG);
  }

  public int prefetchItems() {
    return getInt(PREFETCH_ITEMS_CONFIG);
  }

  public boolean coalesceDeletes() {
    return getBoolean(DELETE_COALESCE_CONFIG);
  }

  public java.time.Duration prefetchMaxAge() {
    return java.time.Duration.ofMillis(getLong(PREFETCH_MAX_AGE_CONFIG));
  }
}
