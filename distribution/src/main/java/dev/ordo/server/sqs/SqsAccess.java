package dev.ordo.server.sqs;

import dev.ordo.server.auth.Caller;
import dev.ordo.server.auth.Permission;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which permission each SQS action needs in the queue's namespace (docs/security.md, docs/sqs.md).
 * {@link #ANY}: any one of produce, consume or operate (reading a queue's URL, attributes or tags).
 * Pure.
 */
public final class SqsAccess {
  /** A read of the queue itself: any permission in the namespace will do. */
  public static final String ANY = "any";

  /** Action to the permission it needs ({@link Permission#label()} or {@link #ANY}), in docs order. */
  public static final Map<String, String> REQUIRED = table();

  private SqsAccess() {}

  private static Map<String, String> table() {
    Map<String, String> m = new LinkedHashMap<>();
    for (String a : new String[] {"SendMessage", "SendMessageBatch"}) {
      m.put(a, Permission.PRODUCE.label());
    }
    for (String a : new String[] {"ReceiveMessage", "DeleteMessage", "DeleteMessageBatch", "ChangeMessageVisibility",
        "ChangeMessageVisibilityBatch"}) {
      m.put(a, Permission.CONSUME.label());
    }
    for (String a : new String[] {"GetQueueUrl", "GetQueueAttributes", "ListQueues", "ListQueueTags",
        "ListDeadLetterSourceQueues", "ListMessageMoveTasks"}) {
      m.put(a, ANY);
    }
    for (String a : new String[] {"CreateQueue", "DeleteQueue", "SetQueueAttributes", "TagQueue", "UntagQueue",
        "PurgeQueue", "StartMessageMoveTask", "CancelMessageMoveTask"}) {
      m.put(a, Permission.OPERATE.label());
    }
    return java.util.Collections.unmodifiableMap(m);
  }

  /** Whether a call of {@code action} is written to the audit log, answered or refused: the ones that change queues. */
  public static boolean audited(String action) {
    return Permission.OPERATE.label().equals(REQUIRED.get(action));
  }

  /** Whether {@code caller} may do {@code action} in {@code namespace}. */
  public static boolean allows(Caller caller, String action, String namespace) {
    String need = REQUIRED.get(action);
    if (need == null) {
      return false;
    }
    if (need.equals(ANY)) {
      return caller.may(Permission.PRODUCE, namespace) || caller.may(Permission.CONSUME, namespace)
          || caller.may(Permission.OPERATE, namespace);
    }
    return caller.may(Permission.parse(need), namespace);
  }

  /** AccessDenied unless {@code caller} may do {@code action} in {@code namespace}. */
  public static void check(Caller caller, String action, String namespace) throws SqsException {
    if (!allows(caller, action, namespace)) {
      String need = Optional.ofNullable(REQUIRED.get(action)).orElse("?");
      throw SqsError.ACCESS_DENIED.with("Access to the resource is denied: " + action + " needs permission '"
          + (need.equals(ANY) ? "produce, consume or operate" : need) + "' on namespace '" + namespace
          + "'; principal '" + caller.principal() + "' has " + (caller.grants().isEmpty() ? "no grants"
          : caller.grants().toString()));
    }
  }

  /** The table for docs/security.md and docs/sqs.md: action and permission. */
  public static String markdown() {
    StringBuilder b = new StringBuilder("| SQS action | permission in the queue's namespace | audited |\n"
        + "| --- | --- | --- |\n");
    REQUIRED.forEach((action, need) -> b.append("| `").append(action).append("` | ")
        .append(need.equals(ANY) ? "produce, consume or operate" : need).append(" | ")
        .append(audited(action) ? "yes" : "").append(" |\n"));
    return b.toString();
  }
}
