package dev.ordo.server.sqs;

/** SQS's rule for message text: only the characters XML allows. Pure. */
final class MessageBodies {
  private MessageBodies() {}

  /**
   * Refuses text with a character outside #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD |
   * #x10000-#x10FFFF (what SQS allows in a body or a String attribute), as SQS does.
   */
  static void checkCharacters(String text, String what) throws SqsException {
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      boolean ok = c == 0x9 || c == 0xA || c == 0xD || c >= 0x20 && c <= 0xD7FF || c >= 0xE000 && c <= 0xFFFD
          || c >= 0x10000 && c <= 0x10FFFF;
      if (!ok) {
        throw SqsError.INVALID_MESSAGE_CONTENTS.with("Invalid characters found in " + what + ": character #x"
            + Integer.toHexString(c) + " at index " + i + ". Allowed: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to"
            + " #xFFFD | #x10000 to #x10FFFF.");
      }
      i += Character.charCount(c);
    }
  }
}
