package dev.ordo.server.sqs;

import dev.ordo.api.Names;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * An SQS queue's place in Ordo: the namespace (the account part of its URL and ARN) and the topic (the
 * queue's name). URL {@code <endpoint>/<namespace>/<name>}, ARN
 * {@code arn:aws:sqs:<region>:<namespace>:<name>}. Pure.
 */
public record QueueRef(String namespace, String name) {
  public static final int MAX_NAME = 80;

  /** The suffix of a FIFO queue's name: its topic is ordered by its name (docs/sqs.md, "FIFO queues"). */
  public static final String FIFO_SUFFIX = ".fifo";

  /**
   * Checks an SQS queue name: 1 to 80 characters, of A-Z a-z 0-9 - _ and, for a FIFO queue, the
   * {@code .fifo} suffix at the end.
   */
  public static void checkName(String name) throws SqsException {
    String base = name.endsWith(FIFO_SUFFIX) ? name.substring(0, name.length() - FIFO_SUFFIX.length()) : name;
    boolean ok = !base.isEmpty() && name.length() <= MAX_NAME && base.chars().allMatch(c ->
        c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_');
    if (!ok) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("Can only include alphanumeric characters, hyphens, or underscores."
          + " 1 to 80 in length" + (base.equals(name) ? "" : ", the .fifo suffix included"));
    }
  }

  /** True for a FIFO queue: its name ends with {@code .fifo}, and its topic is ordered (decisions D60). */
  public boolean fifo() {
    return name.endsWith(FIFO_SUFFIX);
  }

  /** Checks a namespace given as an account part (a URL's, an ARN's, QueueOwnerAWSAccountId). */
  static void checkNamespace(String namespace) throws SqsException {
    String problem = Names.problem("namespace", namespace);
    if (problem != null || namespace.contains(":")) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("the account part '" + namespace + "' is not an Ordo namespace: "
          + (problem != null ? problem : "it contains ':'"));
    }
  }

  public String url(String endpoint) {
    return endpoint + "/" + URLEncoder.encode(namespace, StandardCharsets.UTF_8).replace("+", "%20") + "/" + name;
  }

  public String arn(String region) {
    return "arn:aws:sqs:" + region + ":" + namespace + ":" + name;
  }

  /** The queue a {@code QueueUrl} names: the last two segments of its path (any host, as SQS's SDKs send it). */
  public static QueueRef fromUrl(String url) throws SqsException {
    String path;
    try {
      URI u = URI.create(url.trim());
      path = u.getRawPath() == null ? url : u.getRawPath();
    } catch (IllegalArgumentException e) {
      path = url;
    }
    String[] segments = path.replaceAll("/+$", "").split("/");
    if (segments.length < 2 || segments[segments.length - 1].isEmpty() || segments[segments.length - 2].isEmpty()) {
      throw SqsError.QUEUE_DOES_NOT_EXIST.with("The specified queue does not exist (not a queue URL: '" + url + "').");
    }
    String namespace = URLDecoder.decode(segments[segments.length - 2], StandardCharsets.UTF_8);
    String name = segments[segments.length - 1];
    try {
      checkName(name);
      checkNamespace(namespace);
    } catch (SqsException e) {
      throw SqsError.QUEUE_DOES_NOT_EXIST.with("The specified queue does not exist (not a queue URL: '" + url + "').");
    }
    return new QueueRef(namespace, name);
  }

  /** The queue an ARN names ({@code arn:<partition>:sqs:<region>:<namespace>:<name>}). */
  public static QueueRef fromArn(String arn) throws SqsException {
    String[] parts = arn == null ? new String[0] : arn.split(":", 6);
    if (parts.length != 6 || !parts[0].equals("arn") || !parts[2].equals("sqs")) {
      throw SqsError.INVALID_PARAMETER_VALUE.with("'" + arn + "' is not an SQS queue ARN"
          + " (arn:aws:sqs:<region>:<namespace>:<queue name>)");
    }
    checkNamespace(parts[4]);
    checkName(parts[5]);
    return new QueueRef(parts[4], parts[5]);
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
