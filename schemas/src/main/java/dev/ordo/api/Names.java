package dev.ordo.api;

/**
 * Rules for namespace and topic names: 1 to 200 characters of valid Unicode text, no control
 * characters and no '/'.
 * The store's key layouts end a name with a 0x00 byte and the stats key joins names with '/',
 * so both are excluded.
 */
public final class Names {
  public static final int MAX_LENGTH = 200;

  private Names() {}

  /** Returns null when valid, else why not, naming the field. */
  public static String problem(String field, String name) {
    if (name == null || name.isEmpty()) {
      return field + " is missing";
    }
    if (name.length() > MAX_LENGTH) {
      return field + " is longer than " + MAX_LENGTH + " characters";
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '/' || Character.isISOControl(c)) {
        return field + " '" + printable(name) + "' contains a '/' or a control character";
      }
      // A lone surrogate has no UTF-8 form: two such names would encode to the same key bytes.
      if (Character.isHighSurrogate(c) && (i + 1 == name.length() || !Character.isLowSurrogate(name.charAt(i + 1)))
          || Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(name.charAt(i - 1)))) {
        return field + " contains a lone UTF-16 surrogate (not valid Unicode text)";
      }
    }
    return null;
  }

  public static void check(String field, String name) {
    String problem = problem(field, name);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  private static String printable(String s) {
    StringBuilder b = new StringBuilder();
    s.codePoints().forEach(c -> b.append(Character.isISOControl(c) ? "?" : Character.toString(c)));
    return b.toString();
  }
}
