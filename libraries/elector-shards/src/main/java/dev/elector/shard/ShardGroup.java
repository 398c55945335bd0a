package dev.elector.shard;

import dev.elector.ConfigProblem;
import dev.elector.ElectorConfig;
import dev.elector.ElectorListener;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.internal.ElectorAccess;
import dev.elector.lock.LeaderLock;
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
import java.util.function.IntFunction;
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
 *     .callbacks(shard -> LeaderCallbacks.of(term -> start(shard, term), (term, end) -> stop(shard)))
 *     .build();
 * group.start();
 * }</pre>
 */
public final class ShardGroup implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ShardGroup.class);
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private final String group;
  private final String identity;
  private final List<LeaderElector> shards;
  private final List<LeaderElector> members;
  private final Duration closeTimeout;
  private final ShardPlanner planner; // its Replan listeners run only once started
  private final Object lifecycle = new Object();
  private boolean started;
  private boolean closed;

  private ShardGroup(Builder b) {
    this.group = b.group;
    int shardCount = b.shards;
    int memberSlots = b.memberSlots > 0 ? b.memberSlots : Math.min(shardCount, 64);
    ElectorListener replan = new Replan();
    IntFunction<LeaderCallbacks> callbacks = Objects.requireNonNull(b.callbacks);
    List<ElectorConfig> configs = new ArrayList<>();
    List<LeaderElector> shardElectors = new ArrayList<>();
    for (int i = 0; i < shardCount; i++) {
      int shard = i;
      shardElectors.add(
          elector(
              b,
              configs,
              shardName(b.group, i),
              Objects.requireNonNull(
                  callbacks.apply(shard),
                  "callbacks returned null for shard "
                      + shard
                      + "; return that shard's LeaderCallbacks"),
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
    this.planner =
        new ShardPlanner(
            group,
            identity,
            shards,
            members,
            probe.clock(),
            ElectorAccess.of(shards.get(0)).scheduler(), // alive while the elections are open
            probe.retryPeriod(),
            probe.jitter());
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
    config = config.toBuilder().listener(ElectorListener.both(config.listener(), replan)).build();
    configs.add(config);
    LeaderElector elector = LeaderElector.create(config);
    elector.holdOff(ShardPlanner.FOREVER); // nothing is taken until the first plan deals it
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
    planner.replan();
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
      ElectorAccess.of(shards.get(i)).liveHolder().ifPresent(h -> leaders.put(shard, h));
    }
    return Collections.unmodifiableMap(leaders);
  }

  /** The live members as this replica sees them, itself included once it holds a member slot. */
  public Set<String> members() {
    return planner.liveMembers();
  }

  /** The quota the balance rule gives this replica now (0 while it is not a member). */
  public int quota() {
    return planner.quota();
  }

  /**
   * Leaves the group: every election of this replica is closed, releasing its shards and member
   * slot so that the others take them over at once.
   */
  public CompletableFuture<Void> closeAsync() {
    synchronized (lifecycle) {
      closed = true;
    }
    planner.stop();
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    shards.forEach(e -> closing.add(e.closeAsync()));
    members.forEach(e -> closing.add(e.closeAsync()));
    return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
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

  /** Re-plans on any change an election of this replica sees. */
  private final class Replan implements ElectorListener {
    @Override
    public void onTermStarted(Term term) {
      planner.replan();
    }

    @Override
    public void onTermEnded(Term term, TermEnd reason) {
      planner.replan();
    }

    @Override
    public void onLeaderObserved(String identity) {
      planner.replan();
    }
  }

  /** Builds a {@link ShardGroup}; every rule is checked in {@link #build()}. */
  public static final class Builder {
    private String group = "";
    private int shards;
    private int memberSlots;
    private @Nullable Function<String, LeaderLock> locks;
    private @Nullable IntFunction<LeaderCallbacks> callbacks;
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

    /**
     * The callbacks of each shard: what this replica does when it starts and stops leading it.
     * Called once per shard when the group is built. Each shard is an ordinary election, so its
     * callbacks run as any elector's do: one at a time per shard, on the callback executor, never
     * on a renewal's path, and the stop callback exactly once for every term that started.
     */
    public Builder callbacks(IntFunction<LeaderCallbacks> callbacks) {
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
     * Every problem {@link #build()} would report, as data: each setting that is missing or out of
     * range. Empty when {@code build()} would succeed (the elections' own settings are checked as
     * each is built).
     */
    public List<ConfigProblem> problems() {
      List<ConfigProblem> problems = new ArrayList<>();
      if (!NAME.matcher(group).matches() || group.length() > 40) {
        problems.add(
            new ConfigProblem(
                "group",
                "\"" + group + "\"",
                "must be 1 to 40 lowercase letters, digits or '-', starting and ending with a"
                    + " letter or digit (it prefixes the lock names)",
                "use a name such as \"pools\""));
      }
      if (shards < 1 || shards > 1000) {
        problems.add(
            new ConfigProblem(
                "shards",
                String.valueOf(shards),
                "must be between 1 and 1000",
                "set shards(n) within that; every replica of the group must agree"));
      }
      if (memberSlots < 0 || memberSlots > 1000) {
        problems.add(
            new ConfigProblem(
                "memberSlots",
                String.valueOf(memberSlots),
                "must be between 1 and 1000 (0: default)",
                "set memberSlots(n) within that, or leave it unset for as many as there are shards"));
      }
      if (locks == null) {
        problems.add(
            new ConfigProblem(
                "locks", "", "are missing", "set locks(name -> a lock of that name)"));
      }
      if (callbacks == null) {
        problems.add(
            new ConfigProblem(
                "callbacks",
                "",
                "are missing",
                "set callbacks(shard -> LeaderCallbacks.of(onStart, onStop))"));
      }
      return List.copyOf(problems);
    }

    /**
     * Builds the group's elections without starting them.
     *
     * @throws IllegalArgumentException naming every setting that is missing or out of range, one
     *     {@link ConfigProblem#message()} a line; {@link #problems()} gives them as data
     */
    public ShardGroup build() {
      List<ConfigProblem> problems = problems();
      if (!problems.isEmpty()) {
        StringBuilder message =
            new StringBuilder("Invalid shard group (")
                .append(problems.size())
                .append(problems.size() == 1 ? " problem):" : " problems):");
        problems.forEach(problem -> message.append("\n  - ").append(problem.message()));
        throw new IllegalArgumentException(message.toString());
      }
      return new ShardGroup(this);
    }
  }
}
