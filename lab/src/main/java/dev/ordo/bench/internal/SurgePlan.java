package dev.ordo.bench.internal;

import dev.ordo.client.NamespacePolicy;
import dev.ordo.client.NamespacePolicy.Rate;
import java.time.Duration;

/**
 * The numbers of the surge scenario (issue 13), derived from tenant A's rate and the phase lengths,
 * and the policies it sets; pure, so that what the bench claims to run can be checked without
 * running it.
 *
 * <p>The consumers are one fleet of {@link #workers} workers, each busy {@link #SERVICE} per item,
 * shared by both tenants: a capacity of {@link #capacity} items a second, twice A's rate (rounded to
 * whole workers). B offers 10 times that capacity during its surge. Each tenant's lease consumer
 * holds up to {@link #inFlight} items (a quarter of a second of the fleet's work), and every leased
 * item waits for a free worker in arrival order, whichever tenant it is from: so whatever B gets
 * leased competes with A for the same workers, as in a multitenant fleet.
 *
 * <p>The policies, when the run sets them:
 * <ul>
 *   <li>B: an admission rate of {@link #tenantBShare} of the capacity A leaves spare (by default a
 *       tenth, {@link #DEFAULT_TENANT_B_SHARE}), with a burst of a tenth of a
 *       second's worth (a whole second's burst would hand the fleet a quarter of a second of B's
 *       work at once when the surge starts); a backlog limit of two seconds of the fleet's
 *       capacity, at which B's producer is refused; items older than {@link #B_SIDELINE_AFTER}
 *       sidelined; leases at the admission rate (its dispatch rate), so the fleet's queue never
 *       holds a window of B's items ahead of A's.</li>
 *   <li>A: limits that do not bind at its rate (admission at {@link #A_ADMISSION_OVER_RATE} times
 *       it, a backlog of ten seconds of the fleet's capacity), so that A's figures include what a
 *       policy costs a well-behaved tenant. Not twice its rate: each partition takes a share of a
 *       namespace's rate by its recent demand, and at twice A's rate 8% of A's items still went
 *       through OVERFLOW (a probe at 200 items/s, 4 partitions: p99 305 ms against 58 ms at ten
 *       times), which would measure that share rather than the isolation from B.</li>
 * </ul>
 *
 * @param tenantARate items a second A offers, throughout
 * @param workers the fleet's workers
 * @param capacity items a second the fleet can work on: {@code workers / SERVICE}
 * @param tenantBRate items a second B offers during its surge: 10 times the capacity
 * @param inFlight items each tenant's lease consumer may hold (leased, waiting for a worker or worked on)
 * @param tenantBShare the part of the capacity A leaves spare that B's policy admits (and leases) a second
 * @param warmUp A alone before the measured phases, not counted
 * @param calm the phase before the surge, and the one after it
 * @param surge how long B offers its rate
 */
public record SurgePlan(double tenantARate, int workers, double capacity, double tenantBRate, int inFlight,
    double tenantBShare, Duration warmUp, Duration calm, Duration surge) {
  /** Each fleet worker's time per item (a handler that waits, not one that burns a shared core). */
  public static final Duration SERVICE = Duration.ofMillis(20);
  /** The consumers' capacity over A's rate. */
  public static final double CAPACITY_OVER_A = 2;
  /** B's offer over the consumers' capacity, as the issue states it. */
  public static final double SURGE_OVER_CAPACITY = 10;
  /** A alone before the measured phases: the new cluster's and consumers' first items are not counted. */
  public static final Duration WARM_UP = Duration.ofSeconds(2);
  /** A's admission rate over its offered rate: generous, see the class comment. */
  public static final double A_ADMISSION_OVER_RATE = 10;
  /**
   * B's admission rate over the capacity A leaves spare, by default. Half of it (the first choice)
   * kept A's items out of B's backlog but added B's admitted items' work (OVERFLOW, admission,
   * sideline, lease, ack: more steps than A's) to the queue's two cores, shared with the broker and
   * the clients here, and A's p99 during the surge grew 4 to 9 times; a tenth of it, 1.2 times
   * (docs/benchmarks.md at 328b420, "the share B is admitted").
   */
  public static final double DEFAULT_TENANT_B_SHARE = 0.1;
  /** B's ready items older than this go to their topic's backlog lane. */
  public static final Duration B_SIDELINE_AFTER = Duration.ofSeconds(3);

  public static final String TENANT_A = "tenant-a";
  public static final String TENANT_B = "tenant-b";

  /** The plan for A offering {@code tenantARate} items a second, phases of {@code calmSeconds} around a surge of {@code surgeSeconds}. */
  public static SurgePlan of(int tenantARate, int surgeSeconds, int calmSeconds) {
    return of(tenantARate, surgeSeconds, calmSeconds, DEFAULT_TENANT_B_SHARE);
  }

  /** {@link #of(int, int, int)} with B's policy admitting {@code tenantBShare} (0..1] of the capacity A leaves spare. */
  public static SurgePlan of(int tenantARate, int surgeSeconds, int calmSeconds, double tenantBShare) {
    if (tenantARate < 1 || surgeSeconds < 1 || calmSeconds < 1) {
      throw new IllegalArgumentException("rate and phases must be at least 1, got " + tenantARate + ", "
          + surgeSeconds + ", " + calmSeconds);
    }
    if (!(tenantBShare > 0 && tenantBShare <= 1)) {
      throw new IllegalArgumentException("B's share must be in (0, 1], got " + tenantBShare);
    }
    double serviceSeconds = SERVICE.toNanos() / 1e9;
    int workers = (int) Math.max(1, Math.round(CAPACITY_OVER_A * tenantARate * serviceSeconds));
    double capacity = workers / serviceSeconds;
    int inFlight = (int) Math.max(10, Math.ceil(capacity / 4));
    return new SurgePlan(tenantARate, workers, capacity, SURGE_OVER_CAPACITY * capacity, inFlight, tenantBShare, WARM_UP,
        Duration.ofSeconds(calmSeconds), Duration.ofSeconds(surgeSeconds));
  }

  /**
   * B's policy: admission at {@link #tenantBShare} of the capacity A leaves spare, a backlog limit, sidelining, and a
   * dispatch rate equal to the admission rate: without it B's consumer leased its whole in-flight
   * window at once, and the fleet's queue held that many of B's items ahead of A's (A's p99 during
   * the surge 4.1 × before at full size).
   */
  public NamespacePolicy tenantBPolicy() {
    double admission = Math.max(1, (capacity - tenantARate) * tenantBShare);
    Rate rate = new Rate(admission, (long) Math.max(1, Math.ceil(admission / 10)));
    return new NamespacePolicy(null, rate, (long) Math.max(1, Math.ceil(2 * capacity)), rate, B_SIDELINE_AFTER);
  }

  /** A's policy: limits that never bind at A's rate. */
  public NamespacePolicy tenantAPolicy() {
    return new NamespacePolicy(null, Rate.perSecond(A_ADMISSION_OVER_RATE * tenantARate),
        (long) Math.ceil(10 * capacity), null, null);
  }
}
