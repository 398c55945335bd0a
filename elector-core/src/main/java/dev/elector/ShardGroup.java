package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.time.Cancellable;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leads a share of a group's shards: N named shards, one lock each, spread over the replicas that
 * join the group, so that each shard has at most one leader and every replica leads ⌊N/R⌋ or ⌈N/R⌉
 * of them once settled.
 *
 * <p>Every shard is an ordinary election ({@code <group>-shard-<i>}), with its own terms, fencing
 * tokens and guarantees; a replica competes only for the shards the balance rule deals to it and
 * holds back from the others. Membership is explicit and cheap: a replica joins by leading one of
 * the group's member locks ({@code <group>-member-<j>}, renewed like any lease), so a crashed
 * replica drops out when its member lease expires, and replicas beyond the member slots wait as
 * standbys. Every replica watches every lock of the group (followers only watch: no polling), and
 * re-plans when it sees a change, and once per retryPeriod to notice expiries.
 *
 * <p>The rule, applied by each replica to what it sees: the ⌈N/R⌉ quotas go to the replicas that
 * lead most now (ties by identity), so a settled group stays as it is; a replica above its quota
 * steps down from one shard at a time; shards nobody leads are dealt in order to the replicas below
 * their quota, so they do not race. A replica joining takes about N/(R+1) shards from the others;
 * one leaving frees only its own.
 *
 * <pre>{@code
 * ShardGroup group = ShardGroup.newBuilder()
 *     .group("pools").shards(12)
 *     .locks(name -> leaseBuilder.name(name).build())   // one lock per name, this replica's identity
 *     .callbacks(myShardCallbacks)
 *     .build();
 * group.start();
 * }</pre>
 */
public final class ShardGroup implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ShardGroup.class);
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Duration FOREVER = Duration.ofDays(365L * 100);

  private final String group;
  private final String identity;
  private final List<LeaderElector> shards;
  private final List<LeaderElector> members;
  private final Scheduler scheduler;
  private final long tickNanos;
  private final long settleNanos;
  private final MonotonicClock clock;
  private final Duration closeTimeout;
  private volatile int lastPlanQuota;
  private final @Nullable SharedThreads shared;
  private final SerialExecutor planner;
  // planner state: touched only on the planner
  private final boolean[] mayTakeShard;
  private final boolean[] mayTakeMember;
  private ShardBalance.Plan lastPlan = ShardBalance.Plan.NOTHING;
  private Set<String> lastMembers = Set.of();
  private long joinedAt;
  private boolean joinSeen;
  private final Object lifecycle = new Object();
  private @Nullable Cancellable tick;
  private boolean started;
  private boolean closed;

  private ShardGroup(Builder b) {
    this.group = b.group;
    int shardCount = b.shards;
    int memberSlots = b.memberSlots > 0 ? b.memberSlots : Math.min(shardCount, 64);
    ElectorListener replan = new Replan();
    ShardCallbacks callbacks = Objects.requireNonNull(b.callbacks);
    List<ElectorConfig> configs = new ArrayList<>();
    List<LeaderElector> shardElectors = new ArrayList<>();
    for (int i = 0; i < shardCount; i++) {
      int shard = i;
      shardElectors.add(
          elector(
              b,
              configs,
              shardName(b.group, i),
              LeaderCallbacks.of(
                  term -> callbacks.onStartedLeading(shard, term),
                  (term, end) -> callbacks.onStoppedLeading(shard, term, end)),
              replan));
    }
    List<LeaderElector> memberElectors = new ArrayList<>();
    for (int j = 0; j < memberSlots; j++) {
      memberElectors.add(
          elector(
              b,
              configs,
              memberName(b.group, j),
              LeaderCallbacks.of(t -> {}, (t, e) -> {}),
              replan));
    }
    this.shards = List.copyOf(shardElectors);
    this.members = List.copyOf(memberElectors);
    this.identity = shards.get(0).identity();
    for (LeaderElector e : shards.subList(1, shards.size())) {
      requireSameIdentity(e);
    }
    members.forEach(this::requireSameIdentity);
    ElectorConfig probe = configs.get(0);
    this.closeTimeout = probe.closeTimeout();
    this.tickNanos = probe.retryPeriod().toNanos();
    // a new member shows itself by renewing its slot, jitter × retryPeriod after it took it
    this.settleNanos = (long) ((probe.jitter() + 1) * tickNanos);
    this.clock = probe.clock();
    this.shared = probe.scheduler().isEmpty() ? SharedThreads.acquire() : null;
    this.scheduler = shared == null ? probe.scheduler().orElseThrow() : shared.scheduler;
    this.planner = new SerialExecutor(scheduler);
    this.mayTakeShard = new boolean[shardCount];
    this.mayTakeMember = new boolean[memberSlots];
  }

  private static LeaderElector elector(
      Builder b,
      List<ElectorConfig> configs,
      String name,
      LeaderCallbacks callbacks,
      ElectorListener replan) {
    LeaderLock lock =
        Objects.requireNonNull(
            Objects.requireNonNull(b.locks).apply(name), "locks returned null for " + name);
    ElectorConfig config =
        b.config.apply(ElectorConfig.newBuilder()).lock(lock).callbacks(callbacks).build();
    config = config.toBuilder().listener(Listeners.both(config.listener(), replan)).build();
    configs.add(config);
    LeaderElector elector = LeaderElector.create(config);
    elector.holdOff(FOREVER); // nothing is taken until the first plan deals it
    return elector;
  }

  private void requireSameIdentity(LeaderElector e) {
    if (!e.identity().equals(identity)) {
      throw new IllegalArgumentException(
          "every lock of shard group "
              + group
              + " must carry this replica's identity: "
              + e.describe()
              + " has "
              + e.identity()
              + ", the first has "
              + identity
              + "; build all of them with the same identity");
    }
  }

  /** A builder; set at least the group, the number of shards, the locks and the callbacks. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** The name of shard {@code i}'s lock in {@code group}: {@code <group>-shard-<i>}. */
  public static String shardName(String group, int i) {
    return group + "-shard-" + i;
  }

  /** The name of member slot {@code j}'s lock in {@code group}: {@code <group>-member-<j>}. */
  public static String memberName(String group, int j) {
    return group + "-member-" + j;
  }

  /** Starts every election of this replica; returns at once. */
  public void start() {
    synchronized (lifecycle) {
      if (started || closed) {
        throw new IllegalStateException("shard group " + group + " was already started or closed");
      }
      started = true;
    }
    shards.forEach(LeaderElector::start);
    members.forEach(LeaderElector::start);
    replan();
  }

  /** This replica's identity. */
  public String identity() {
    return identity;
  }

  /** The number of shards in the group. */
  public int shardCount() {
    return shards.size();
  }

  /** The shards this replica leads now. */
  public Set<Integer> leading() {
    Set<Integer> led = new TreeSet<>();
    for (int i = 0; i < shards.size(); i++) {
      if (shards.get(i).isLeader()) {
        led.add(i);
      }
    }
    return Collections.unmodifiableSet(led);
  }

  /** The elector of shard {@code i}, for its term, health and stats. */
  public LeaderElector shard(int i) {
    return shards.get(i);
  }

  /** Each shard's live leader as this replica sees it; shards without one are left out. */
  public Map<Integer, String> leaders() {
    Map<Integer, String> leaders = new TreeMap<>();
    for (int i = 0; i < shards.size(); i++) {
      int shard = i;
      shards.get(i).liveHolder().ifPresent(h -> leaders.put(shard, h));
    }
    return Collections.unmodifiableMap(leaders);
  }

  /** The live members as this replica sees them, itself included once it holds a member slot. */
  public Set<String> members() {
    Set<String> live = new TreeSet<>();
    for (LeaderElector m : members) {
      m.renewingHolder().ifPresent(live::add); // a record found on the first look may be dead
    }
    return Collections.unmodifiableSet(live);
  }

  /** The quota the balance rule gives this replica now (0 while it is not a member). */
  public int quota() {
    return lastPlanQuota;
  }

  /**
   * Leaves the group: every election of this replica is closed, releasing its shards and member
   * slot so that the others take them over at once.
   */
  public CompletableFuture<Void> closeAsync() {
    synchronized (lifecycle) {
      closed = true;
      Cancellable t = tick;
      tick = null;
      if (t != null) {
        t.cancel();
      }
    }
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    shards.forEach(e -> closing.add(e.closeAsync()));
    members.forEach(e -> closing.add(e.closeAsync()));
    CompletableFuture<Void> all =
        CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    SharedThreads threads = shared;
    return threads == null ? all : all.whenComplete((v, e) -> threads.release());
  }

  /** {@link #closeAsync()}, waiting up to one close timeout of the elections for it to finish. */
  @Override
  public void close() {
    long timeoutMillis = closeTimeout.toMillis() * 2;
    try {
      closeAsync().get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.warn("shard group {} [{}]: close did not finish: {}", group, identity, e.toString());
    }
  }

  @Override
  public String toString() {
    return "ShardGroup[" + group + ", " + identity + ", " + shards.size() + " shards]";
  }

  // ---------------------------------------------------------------- planning

  private void replan() {
    try {
      planner.execute(this::plan);
    } catch (RuntimeException stopped) {
      log.debug("shard group {} [{}]: scheduler stopped, no more plans", group, identity);
    }
  }

  private void plan() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      Cancellable t = tick;
      if (t != null) {
        t.cancel();
      }
    }
    joinOneSlot();
    Set<String> live = members();
    List<String> holders = new ArrayList<>(shards.size());
    for (LeaderElector s : shards) {
      holders.add(s.liveHolder().orElse(""));
    }
    ShardBalance.Plan plan = ShardBalance.plan(identity, live, holders);
    long settling = settlingAfterJoin(live);
    // members it cannot see may lead shards too: it takes nothing until it sees every slot again
    boolean blind = members.stream().anyMatch(m -> !m.seesTheLock());
    if (settling > 0 || blind) {
      plan = new ShardBalance.Plan(Set.of(), plan.release(), plan.quota());
    }
    synchronized (lifecycle) {
      if (!closed) { // expiries make no events: look again after a retryPeriod, or when settled
        tick = scheduler.schedule(this::replan, settling > 0 ? settling : tickNanos);
      }
    }
    lastPlanQuota = plan.quota();
    for (int i = 0; i < shards.size(); i++) {
      boolean take = plan.take().contains(i);
      if (take != mayTakeShard[i]) {
        mayTakeShard[i] = take;
        shards.get(i).holdOff(take ? Duration.ZERO : FOREVER);
      }
    }
    if (plan.release() >= 0) {
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
            live.size());
      }
    }
    if (!plan.equals(lastPlan)) {
      log.debug("shard group {} [{}]: plan {} with members {}", group, identity, plan, live);
      lastPlan = plan;
    }
  }

  /**
   * How long until a member that joined has been a member for (jitter + 1) × retryPeriod, or 0.
   * Replicas that start together become members one after another within moments, and each counts
   * the others once it saw them renew; dealing free shards only once membership has held still that
   * long keeps the first member from taking every shard and handing most of them on. Members
   * leaving need no wait: their shards are dealt at once (after their leases expire).
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
        if (members.get(j).liveHolder().isEmpty()) {
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

  /** Re-plans on any change an election of this replica sees. */
  private final class Replan implements ElectorListener {
    @Override
    public void onTermStarted(Term term) {
      replan();
    }

    @Override
    public void onTermEnded(Term term, TermEnd reason) {
      replan();
    }

    @Override
    public void onLeaderObserved(String identity) {
      replan();
    }
  }

  /** Builds a {@link ShardGroup}; every rule is checked in {@link #build()}. */
  public static final class Builder {
    private String group = "";
    private int shards;
    private int memberSlots;
    private @Nullable Function<String, LeaderLock> locks;
    private @Nullable ShardCallbacks callbacks;
    private UnaryOperator<ElectorConfig.Builder> config = UnaryOperator.identity();

    private Builder() {}

    /**
     * The group's name, the prefix of its lock names: lowercase letters, digits and '-', as a
     * Kubernetes object name.
     */
    public Builder group(String group) {
      this.group = Objects.requireNonNull(group, "group");
      return this;
    }

    /** How many shards the group has (1 to 1,000); every replica of the group must agree. */
    public Builder shards(int shards) {
      this.shards = shards;
      return this;
    }

    /**
     * How many replicas may be members at once; default the number of shards, at most 64. Replicas
     * beyond it wait as standbys and join when a slot frees. Every replica must agree.
     */
    public Builder memberSlots(int memberSlots) {
      this.memberSlots = memberSlots;
      return this;
    }

    /**
     * Makes the lock of a given name, with this replica's identity (for example a Lease lock
     * builder with {@code .name(name)}); called once per shard and member slot.
     */
    public Builder locks(Function<String, LeaderLock> locks) {
      this.locks = Objects.requireNonNull(locks, "locks");
      return this;
    }

    /** What this replica does when it starts and stops leading a shard. */
    public Builder callbacks(ShardCallbacks callbacks) {
      this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
      return this;
    }

    /**
     * Settings for every election of the group (timings, clock, scheduler, executors, listener);
     * the lock and callbacks are the group's own.
     */
    public Builder config(UnaryOperator<ElectorConfig.Builder> config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * Builds the group's elections without starting them.
     *
     * @throws ElectorConfigException naming every setting that is missing or out of range
     */
    public ShardGroup build() {
      List<String> problems = new ArrayList<>();
      if (!NAME.matcher(group).matches() || group.length() > 40) {
        problems.add(
            "group \""
                + group
                + "\" must be 1 to 40 lowercase letters, digits or '-', starting and ending with a"
                + " letter or digit (it prefixes the lock names)");
      }
      if (shards < 1 || shards > 1000) {
        problems.add("shards " + shards + " must be between 1 and 1000");
      }
      if (memberSlots < 0 || memberSlots > 1000) {
        problems.add("memberSlots " + memberSlots + " must be between 1 and 1000 (0: default)");
      }
      if (locks == null) {
        problems.add("locks are missing; set locks(name -> a lock of that name)");
      }
      if (callbacks == null) {
        problems.add("callbacks are missing; set callbacks(new ShardCallbacks() {...})");
      }
      if (!problems.isEmpty()) {
        throw new ElectorConfigException(problems);
      }
      return new ShardGroup(this);
    }
  }
}
