package dev.ordo.server.sqs;

/** An SQS error answer decided on by the endpoint: its {@link SqsError} and a message for the caller. */
public final class SqsException extends Exception {
  private final SqsError error;

  public SqsException(SqsError error, String message) {
    super(message, null, false, false);
    this.error = error;
  }

  public SqsError error() {
    return error;
  }
}
