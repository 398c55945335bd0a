package dev.elector.internal;

import dev.elector.time.Scheduler;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What the shard planner reads of its own electors that is no part of an elector's API: how the
 * candidate sees the lock now, on its own clock. {@code dev.elector.LeaderElector} provides it when
 * its class is initialised, so the shard planner (in elector-shards, the one jar let into this
 * package) asks here instead of through methods added to {@code LeaderElector} (the JDK keeps its
 * package-crossing internals the same way). Internal.
 */
public final class ElectorAccess {

  /** One candidate's view of its lock, read under its driver's monitor. */
  public interface Sight {
    /**
     * The holder whose lease this candidate would respect now: itself while leading, the holder of
     * a record that has not yet expired on this candidate's clock, else empty (free, released,
     * expired or not seen yet).
     */
    Optional<String> liveHolder();

    /**
     * As {@link #liveHolder()}, but a holder counts only once this candidate has seen the lock
     * change (a renewal, say) since its first look: a record found on the first look may be a dead
     * holder's, whose lease this candidate honours without taking it for a sign of life.
     */
    Optional<String> renewingHolder();

    /** Whether this candidate has seen the lock, and its watch or its last call is fresh. */
    boolean seesTheLock();

    /** The scheduler the candidate runs on, for work that paces itself with the candidate. */
    Scheduler scheduler();
  }

  private static volatile @Nullable Function<Object, Sight> sights;

  private ElectorAccess() {}

  /** Called once, by {@code LeaderElector}'s class initialiser. */
  public static void provide(Function<Object, Sight> electorToSight) {
    Objects.requireNonNull(electorToSight, "electorToSight");
    synchronized (ElectorAccess.class) {
      if (sights != null) {
        throw new IllegalStateException("the elector's sight is provided already");
      }
      sights = electorToSight;
    }
  }

  /** The sight of {@code elector}, a {@code dev.elector.LeaderElector}. */
  public static Sight of(Object elector) {
    Function<Object, Sight> provided = sights;
    if (provided == null) {
      throw new IllegalStateException("no LeaderElector was created yet");
    }
    return provided.apply(elector);
  }
}
