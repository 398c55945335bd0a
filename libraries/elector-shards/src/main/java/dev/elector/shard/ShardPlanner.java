package dev.elector.shard;

import dev.elector.LeaderElector;
import dev.elector.internal.ElectorAccess;
import dev.elector.internal.time.SerialExecutor;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@link ShardBalance} for one replica of a shard group: on every change its elections see,
 * and once per retryPeriod to notice expiries, it reads the replica's view (members, each shard's
 * live holder), keeps the replica in one member slot, lets each shard election compete or holds it
 * back, and steps down from a surplus shard. Plans run one at a time on a serial executor.
 */
final class ShardPlanner {
  private static final Logger log = LoggerFactory.getLogger(ShardPlanner.class);

  /** A hold-off that never ends by itself: a held-back election only reads. */
  static final Duration FOREVER = Duration.ofDays(365L * 100);

  private final String group;
  private final String identity;
  private final List<LeaderElector> shards;
  private final List<LeaderElector> members;
  private final MonotonicClock clock;
  private final Scheduler scheduler;
  private final long tickNanos;
  private final long settleNanos;
  private final SerialExecutor serial;
  private volatile int quota;
  private final Object lock = new Object();
  private @Nullable Future<?> tick; // guarded by lock
  private boolean stopped; // guarded by lock
  // touched only on the serial executor
  private final boolean[] mayTakeShard;
  private final boolean[] mayTakeMember;
  private ShardBalance.Plan lastPlan = ShardBalance.Plan.NOTHING;
  private Set<String> lastMembers = Set.of();
  private long joinedAt;
  private boolean joinSeen;

  /**
   * A planner over the replica's shard and member elections, which share {@code identity}; {@code
   * jitter} and {@code retryPeriod} are theirs.
   */
  ShardPlanner(
      String group,
      String identity,
      List<LeaderElector> shards,
      List<LeaderElector> members,
      MonotonicClock clock,
      Scheduler scheduler,
      Duration retryPeriod,
      double jitter) {
    this.group = group;
    this.identity = identity;
    this.shards = List.copyOf(shards);
    this.members = List.copyOf(members);
    this.clock = clock;
    this.scheduler = scheduler;
    this.tickNanos = retryPeriod.toNanos();
    // a new member shows itself by renewing its slot, jitter × retryPeriod after it took it
    this.settleNanos = (long) ((jitter + 1) * tickNanos);
    this.serial = new SerialExecutor(scheduler);
    this.mayTakeShard = new boolean[shards.size()];
    this.mayTakeMember = new boolean[members.size()];
  }

  /** Plans again soon, on the serial executor. */
  void replan() {
    try {
      serial.execute(this::plan);
    } catch (RuntimeException stopped) {
      log.debug("shard group {} [{}]: scheduler stopped, no more plans", group, identity);
    }
  }

  /** Plans no more: the pending look is cancelled and later ones do nothing. */
  void stop() {
    synchronized (lock) {
      stopped = true;
      Future<?> t = tick;
      tick = null;
      if (t != null) {
        t.cancel(false);
      }
    }
  }

  /** The quota of the last plan (0 while not a member). */
  int quota() {
    return quota;
  }

  /** The live members as this replica sees them, itself included once it holds a member slot. */
  Set<String> liveMembers() {
    Set<String> live = new TreeSet<>();
    for (LeaderElector m : members) {
      ElectorAccess.of(m)
          .renewingHolder()
          .ifPresent(live::add); // a record found on the first look may be dead
    }
    return Collections.unmodifiableSet(live);
  }

  private void plan() {
    synchronized (lock) {
      if (stopped) {
        return;
      }
      Future<?> t = tick;
      if (t != null) {
        t.cancel(false);
      }
    }
    joinOneSlot();
    Set<String> live = liveMembers();
    List<String> holders = new ArrayList<>(shards.size());
    for (LeaderElector s : shards) {
      holders.add(ElectorAccess.of(s).liveHolder().orElse(""));
    }
    ShardBalance.Plan plan = ShardBalance.plan(identity, live, holders);
    long settling = settlingAfterJoin(live);
    // A group that already works (another replica leads a shard) is no forming group: the free
    // shards are those its members let go for this one, which takes them at once (within a quota
    // that counts only the members it has seen renew, so never fewer than it should take).
    boolean forming = holders.stream().noneMatch(h -> !h.isEmpty() && !h.equals(identity));
    // members it cannot see may lead shards too: it takes nothing until it sees every slot again
    boolean blind = members.stream().anyMatch(m -> !ElectorAccess.of(m).seesTheLock());
    if ((settling > 0 && forming) || blind) {
      plan = new ShardBalance.Plan(Set.of(), plan.release(), plan.quota());
    }
    synchronized (lock) {
      if (!stopped) { // expiries make no events: look again after a retryPeriod, or when settled
        tick = scheduler.schedule(this::replan, settling > 0 ? settling : tickNanos);
      }
    }
    quota = plan.quota();
    for (int i = 0; i < shards.size(); i++) {
      boolean take = plan.take().contains(i);
      if (take != mayTakeShard[i]) {
        mayTakeShard[i] = take;
        shards.get(i).holdOff(take ? Duration.ZERO : FOREVER);
      }
    }
    if (plan.release() >= 0) {
      stepDown(plan, holders, live.size());
    }
    if (!plan.equals(lastPlan)) {
      log.debug("shard group {} [{}]: plan {} with members {}", group, identity, plan, live);
      lastPlan = plan;
    }
  }

  private void stepDown(ShardBalance.Plan plan, List<String> holders, int memberCount) {
    LeaderElector surplus = shards.get(plan.release());
    mayTakeShard[plan.release()] = false;
    if (surplus.stepDown(FOREVER)) {
      log.info(
          "shard group {} [{}]: stepping down from shard {} (leading {}, quota {}, members {})",
          group,
          identity,
          plan.release(),
          holders.stream().filter(identity::equals).count(),
          plan.quota(),
          memberCount);
    }
  }

  /**
   * How long until a member that joined has been a member for (jitter + 1) × retryPeriod, or 0.
   * Replicas that start together become members one after another within moments, and each counts
   * the others once it saw them renew; while the group forms (no other replica leads a shard),
   * dealing free shards only once membership has held still that long keeps the first member from
   * taking every shard and handing most of them on. A replica joining a working group does not
   * wait: the shards free then are those the members let go for it. Members leaving need no wait:
   * their shards are dealt at once (after their leases expire).
   */
  private long settlingAfterJoin(Set<String> live) {
    long now = clock.nanos();
    if (!lastMembers.containsAll(live)) {
      joinSeen = true;
      joinedAt = now;
    }
    lastMembers = live;
    return joinSeen ? Math.max(0, joinedAt + settleNanos - now) : 0;
  }

  /**
   * Keeps this replica in exactly one member slot: it competes for the lowest slot without a live
   * holder until it leads one, steps down from any extra slot it won, and holds back from the rest.
   */
  private void joinOneSlot() {
    int held = -1;
    for (int j = 0; j < members.size(); j++) {
      if (members.get(j).isLeader()) {
        if (held < 0) {
          held = j;
        } else {
          members.get(j).stepDown(FOREVER); // won two at once: keep the lower
          mayTakeMember[j] = false;
        }
      }
    }
    int wanted = held;
    if (wanted < 0) {
      for (int j = 0; j < members.size() && wanted < 0; j++) {
        if (ElectorAccess.of(members.get(j)).liveHolder().isEmpty()) {
          wanted = j;
        }
      }
    }
    for (int j = 0; j < members.size(); j++) {
      boolean take = j == wanted;
      if (take != mayTakeMember[j]) {
        mayTakeMember[j] = take;
        members.get(j).holdOff(take ? Duration.ZERO : FOREVER);
      }
    }
  }
}
