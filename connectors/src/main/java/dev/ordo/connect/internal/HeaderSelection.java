package dev.ordo.connect.internal;

import dev.ordo.api.ItemHeaders;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which of a record's headers its item keeps, parsed from the {@code ordo.headers} setting: {@code all}
 * (every header), {@code none}, or a list of header names (case-sensitive, as Kafka's are). Whatever
 * the selection, names Ordo reserves ({@value ItemHeaders#RESERVED_PREFIX}...) and empty names are
 * never kept: an item cannot carry them.
 */
public final class HeaderSelection {
  public static final HeaderSelection ALL = new HeaderSelection(true, Set.of());
  public static final HeaderSelection NONE = new HeaderSelection(false, Set.of());

  private final boolean all;
  private final Set<String> names;

  private HeaderSelection(boolean all, Set<String> names) {
    this.all = all;
    this.names = names;
  }

  /** Only the headers named in {@code names}. */
  public static HeaderSelection of(Set<String> names) {
    return names.isEmpty() ? NONE : new HeaderSelection(false, Set.copyOf(names));
  }

  /**
   * The selection a setting's list spells ({@code [all]}, {@code [none]} in any case, or names);
   * throws {@link FieldSource.InvalidSource} with the reason for an empty list, an empty or reserved
   * name, or {@code all}/{@code none} beside names.
   */
  public static HeaderSelection parse(List<String> setting) throws FieldSource.InvalidSource {
    if (setting == null || setting.isEmpty()) {
      throw new FieldSource.InvalidSource("no header named: use all, none or a comma-separated list of names");
    }
    Set<String> names = new LinkedHashSet<>();
    for (String name : setting) {
      String keyword = name.toLowerCase(Locale.ROOT);
      if (keyword.equals("all") || keyword.equals("none")) {
        if (setting.size() > 1) {
          throw new FieldSource.InvalidSource("'" + name + "' stands alone, not in a list of header names");
        }
        return keyword.equals("all") ? ALL : NONE;
      }
      if (name.isEmpty()) {
        throw new FieldSource.InvalidSource("a header name in the list is empty");
      }
      if (ItemHeaders.isReserved(name)) {
        throw new FieldSource.InvalidSource("header name '" + name + "' is reserved (names starting with '"
            + ItemHeaders.RESERVED_PREFIX + "' are Ordo's own, an item cannot carry them)");
      }
      names.add(name);
    }
    return of(names);
  }

  /** Whether nothing is kept (the mapper then skips the headers altogether). */
  public boolean isNone() {
    return !all && names.isEmpty();
  }

  /** Whether a header of this name goes with the item. */
  public boolean keeps(String name) {
    if (name == null || name.isEmpty() || ItemHeaders.isReserved(name)) {
      return false;
    }
    return all || names.contains(name);
  }

  @Override
  public String toString() {
    return all ? "all" : names.isEmpty() ? "none" : String.join(",", names);
  }
}
