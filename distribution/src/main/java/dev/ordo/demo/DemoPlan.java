package dev.ordo.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The demo's workload, decided up front from a seed: which topic and priority each item has,
 * whether it is delayed, how its handler behaves (succeeds, fails once and is retried with
 * backoff, asks twice to be retried later, or always fails: the poison item), and how long its
 * simulated work takes. Pure: the same settings give the same plan.
 */
public record DemoPlan(DemoSettings settings, List<Planned> items) {

  /** How the handler treats an item. */
  public enum Behaviour {
    /** Returns: acked on the first attempt. */
    SUCCEEDS,
    /** Throws on the first attempt (a simulated outage): nacked with backoff, then succeeds. */
    FAILS_ONCE,
    /** Throws {@code RetryLater} on the first two attempts (rate limited), then succeeds. */
    RETRY_LATER_TWICE,
    /** Always throws: dead-lettered after its max attempts. */
    POISON
  }

  /**
   * One planned item.
   *
   * @param index its number in the plan; the payload is {@code demo-<index>}
   * @param delayMs 0 for an item ready at once
   * @param workMs how long its handler works (sleeps) on each attempt
   * @param maxAttempts the item's attempt limit
   */
  public record Planned(int index, String topic, int priority, long delayMs, Behaviour behaviour, long workMs,
      int maxAttempts) {
    /** Attempts it takes when all goes to plan. */
    public int plannedAttempts() {
      return switch (behaviour) {
        case SUCCEEDS -> 1;
        case FAILS_ONCE -> 2;
        case RETRY_LATER_TWICE -> 3;
        case POISON -> maxAttempts;
      };
    }

    public String payload() {
      return "demo-" + index;
    }
  }

  /** Attempts of the poison items before they are dead-lettered. */
  public static final int POISON_MAX_ATTEMPTS = 3;
  /** Attempts of every other item (more than any of them needs). */
  public static final int MAX_ATTEMPTS = 5;

  public static DemoPlan create(DemoSettings s) {
    Random random = new Random(s.seed());
    List<Planned> items = new ArrayList<>(s.items());
    // The poison items are spread evenly through the plan, the others drawn at random.
    int poisonEvery = s.poisonItems() == 0 ? Integer.MAX_VALUE : Math.max(1, s.items() / (s.poisonItems() + 1));
    int poisoned = 0;
    for (int i = 0; i < s.items(); i++) {
      String topic = s.topics().get(random.nextInt(s.topics().size()));
      int priority = random.nextInt(s.maxPriority() + 1);
      boolean poison = poisoned < s.poisonItems() && (i + 1) % poisonEvery == 0;
      double roll = random.nextDouble();
      Behaviour behaviour;
      if (poison) {
        behaviour = Behaviour.POISON;
        poisoned++;
      } else if (roll < s.failOnceShare()) {
        behaviour = Behaviour.FAILS_ONCE;
      } else if (roll < s.failOnceShare() + s.retryLaterShare()) {
        behaviour = Behaviour.RETRY_LATER_TWICE;
      } else {
        behaviour = Behaviour.SUCCEEDS;
      }
      long delayMs = random.nextDouble() < s.delayedShare()
          ? Duration.ofMillis(200).toMillis() + (long) (random.nextDouble() * (s.maxDelay().toMillis() - 200))
          : 0;
      long workMs = 1 + random.nextInt((int) Math.max(1, s.maxWork().toMillis()));
      items.add(new Planned(i, topic, priority, delayMs, behaviour, workMs,
          poison ? POISON_MAX_ATTEMPTS : MAX_ATTEMPTS));
    }
    return new DemoPlan(s, List.copyOf(items));
  }

  /** The planned item of a payload {@code demo-<index>}, or null for a payload not of this plan. */
  public Planned byPayload(String payload) {
    if (payload == null || !payload.startsWith("demo-")) {
      return null;
    }
    try {
      int i = Integer.parseInt(payload.substring(5));
      return i >= 0 && i < items.size() ? items.get(i) : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  public long count(Behaviour b) {
    return items.stream().filter(p -> p.behaviour() == b).count();
  }

  public long delayed() {
    return items.stream().filter(p -> p.delayMs() > 0).count();
  }
}
