package dev.ordo.server.sqs;

/**
 * SQS's errors as its two protocols name them: the JSON protocol's shape ({@code __type}
 * {@code com.amazonaws.sqs#<shape>}, with the query code in {@code x-amzn-query-error}) and the query
 * protocol's {@code <Code>}. The SDKs map these to their exception types, so the names are SQS's own.
 */
public enum SqsError {
  QUEUE_DOES_NOT_EXIST("QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", 400),
  QUEUE_NAME_EXISTS("QueueNameExists", "QueueAlreadyExists", 400),
  INVALID_ATTRIBUTE_NAME("InvalidAttributeName", "InvalidAttributeName", 400),
  INVALID_ATTRIBUTE_VALUE("InvalidAttributeValue", "InvalidAttributeValue", 400),
  INVALID_PARAMETER_VALUE("InvalidParameterValue", "InvalidParameterValue", 400),
  MISSING_PARAMETER("MissingParameter", "MissingParameter", 400),
  INVALID_MESSAGE_CONTENTS("InvalidMessageContents", "InvalidMessageContents", 400),
  RECEIPT_HANDLE_IS_INVALID("ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", 400),
  MESSAGE_NOT_INFLIGHT("MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight", 400),
  TOO_MANY_ENTRIES("TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400),
  EMPTY_BATCH("EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest", 400),
  BATCH_IDS_NOT_DISTINCT("BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400),
  INVALID_BATCH_ENTRY_ID("InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId", 400),
  BATCH_TOO_LONG("BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong", 400),
  UNSUPPORTED_OPERATION("UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", 400),
  RESOURCE_NOT_FOUND("ResourceNotFoundException", "ResourceNotFoundException", 404),
  PURGE_IN_PROGRESS("PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", 403),
  ACCESS_DENIED("AccessDenied", "AccessDenied", 403),
  INVALID_CLIENT_TOKEN_ID("InvalidClientTokenId", "InvalidClientTokenId", 403),
  SIGNATURE_DOES_NOT_MATCH("SignatureDoesNotMatch", "SignatureDoesNotMatch", 403),
  MISSING_AUTHENTICATION_TOKEN("MissingAuthenticationToken", "MissingAuthenticationToken", 403),
  INCOMPLETE_SIGNATURE("IncompleteSignature", "IncompleteSignature", 400),
  REQUEST_EXPIRED("RequestExpired", "RequestExpired", 400),
  REQUEST_THROTTLED("RequestThrottled", "RequestThrottled", 403),
  SERVICE_UNAVAILABLE("ServiceUnavailable", "ServiceUnavailable", 503),
  INTERNAL_ERROR("InternalFailure", "InternalError", 500);

  private final String shape;
  private final String code;
  private final int status;

  SqsError(String shape, String code, int status) {
    this.shape = shape;
    this.code = code;
    this.status = status;
  }

  /** The JSON protocol's error shape, e.g. {@code QueueDoesNotExist}. */
  public String shape() {
    return shape;
  }

  /** The query protocol's code, e.g. {@code AWS.SimpleQueueService.NonExistentQueue}. */
  public String code() {
    return code;
  }

  public int status() {
    return status;
  }

  /** Whether the caller is at fault ({@code Sender}) or the service ({@code Receiver}). */
  public boolean senderFault() {
    return status < 500;
  }

  /** An exception carrying this error and {@code message}. */
  public SqsException with(String message) {
    return new SqsException(this, message);
  }
}
