package dev.ordo.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints durations the way users write them: {@code 250ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}. */
public final class Durations {
  private static final Pattern FORMAT = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private Durations() {}

  public static Duration parse(String text) {
    Matcher m = text == null ? null : FORMAT.matcher(text.trim());
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException("not a duration (want e.g. 500ms, 30s, 5m, 2h, 1d): '" + text + "'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  /** Parses a comma-separated list, e.g. {@code 30s,1m,5m,30m}; strictly increasing, all positive. */
  public static List<Duration> parseList(String text) {
    List<Duration> list = new ArrayList<>();
    for (String part : text.split(",")) {
      Duration d = parse(part);
      if (d.isZero()) {
        throw new IllegalArgumentException("a delay tier must be longer than 0: '" + part.trim() + "'");
      }
      if (!list.isEmpty() && d.compareTo(list.get(list.size() - 1)) <= 0) {
        throw new IllegalArgumentException("delay tiers must be strictly increasing: '" + text + "'");
      }
      list.add(d);
    }
    return List.copyOf(list);
  }

  /** The shortest exact form: 30s, 1m, 500ms. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 86_400_000L == 0 && ms > 0) return ms / 86_400_000L + "d";
    if (ms % 3_600_000L == 0 && ms > 0) return ms / 3_600_000L + "h";
    if (ms % 60_000L == 0 && ms > 0) return ms / 60_000L + "m";
    if (ms % 1000L == 0 && ms > 0) return ms / 1000L + "s";
    return ms + "ms";
  }
}
