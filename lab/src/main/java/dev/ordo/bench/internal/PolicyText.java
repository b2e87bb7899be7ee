package dev.ordo.bench.internal;

import dev.ordo.client.NamespacePolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A namespace policy's limits in one line, for the bench's report. Pure. */
public final class PolicyText {
  private PolicyText() {}

  /**
   * The limits {@code p} sets, e.g. {@code admission 500/s (burst 50), maxBacklog 4,000, sidelineAfter 3 s};
   * "none" for no policy, "no limits" for a policy of defaults only.
   */
  public static String describe(NamespacePolicy p) {
    if (p == null) {
      return "none";
    }
    List<String> parts = new ArrayList<>();
    if (p.admissionRate() != null) {
      parts.add(String.format(Locale.ROOT, "admission %s/s (burst %,d)", number(p.admissionRate().perSecond()),
          p.admissionRate().burst()));
    }
    if (p.maxBacklog() != null) {
      parts.add(String.format(Locale.ROOT, "maxBacklog %,d", p.maxBacklog()));
    }
    if (p.dispatchRate() != null) {
      parts.add(String.format(Locale.ROOT, "dispatch %s/s (burst %,d)", number(p.dispatchRate().perSecond()),
          p.dispatchRate().burst()));
    }
    if (p.sidelineAfter() != null) {
      parts.add(String.format(Locale.ROOT, "sidelineAfter %s s", number(p.sidelineAfter().toMillis() / 1000.0)));
    }
    if (p.shards() != null) {
      parts.add("shards " + p.shards());
    }
    if (p.groups() != null && p.groups().rate() != null) {
      parts.add(String.format(Locale.ROOT, "groupRate %s/s (burst %,d)", number(p.groups().rate().perSecond()),
          p.groups().rate().burst()));
    }
    return parts.isEmpty() ? "no limits" : String.join(", ", parts);
  }

  private static String number(double v) {
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%,.1f", v);
  }
}
