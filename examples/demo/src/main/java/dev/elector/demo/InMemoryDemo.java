package dev.elector.demo;

import dev.elector.ElectorConfig;
import dev.elector.ElectorListener;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.LockCall;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * Three candidates in one JVM on the in-memory lock: the leader crashes (stops answering, nothing
 * released), a follower takes over after the lease expires, then that leader closes gracefully and
 * hands over at once. Prints a live timeline and a summary.
 */
public final class InMemoryDemo {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration RENEW_DEADLINE = Duration.ofSeconds(2);
  private static final Duration RETRY = Duration.ofMillis(500);

  private final long startNanos = System.nanoTime();
  private final List<String> terms = new ArrayList<>();
  private final Map<String, Long> termStart = new LinkedHashMap<>();
  private volatile String leader;
  private volatile long leaderSince;

  public static void main(String[] args) throws Exception {
    new InMemoryDemo().run();
  }

  private void run() throws Exception {
    InMemoryLockStore store = InMemoryLockStore.create("demo-lock");
    print(
        "Elector demo: 3 candidates, lease %s, renewDeadline %s, retryPeriod %s",
        LEASE, RENEW_DEADLINE, RETRY);
    Map<String, KillableLock> locks = new LinkedHashMap<>();
    Map<String, LeaderElector> electors = new LinkedHashMap<>();
    for (String name : List.of("alpha", "bravo", "charlie")) {
      KillableLock lock = new KillableLock(store.lockFor(name));
      locks.put(name, lock);
      electors.put(
          name,
          LeaderElector.start(
              ElectorConfig.newBuilder()
                  .lock(lock)
                  .leaseDuration(LEASE)
                  .renewDeadline(RENEW_DEADLINE)
                  .retryPeriod(RETRY)
                  .watchWhenFollowing(false)
                  .callbacks(callbacksFor(name))
                  .listener(timelineFor(name))
                  .build()));
    }
    String first = awaitLeader(null);
    LeaderElector leading = electors.get(first);
    Awaitility.await(first + " renewing three times")
        .atMost(Duration.ofSeconds(30))
        .until(() -> leading.stats().calls(LockCall.RENEW) >= 3);

    print("--- killing %s without warning (its calls stop reaching the lock)", first);
    long lastRenew = System.nanoTime(); // renewals every retryPeriod: the last one is at most this
    locks.get(first).kill();
    long killedAt = System.nanoTime();
    String second = awaitLeader(first);
    long failover = leaderSince - killedAt;
    if (leaderSince - lastRenew < LEASE.minus(RETRY).toNanos()) {
      throw new IllegalStateException("a follower took over before the lease expired");
    }
    electors.remove(first).closeAsync().get(30, TimeUnit.SECONDS);

    print("--- closing %s gracefully (release on close)", second);
    long closeAt = System.nanoTime();
    electors.remove(second).close();
    String third = awaitLeader(second);
    long handover = leaderSince - closeAt;

    for (LeaderElector elector : electors.values()) {
      elector.close();
    }
    print("--- summary");
    terms.forEach(line -> print("  %s", line));
    print(
        "  crash failover: %d ms after the kill (lease %d ms, so at least lease - retryPeriod)",
        ms(failover), LEASE.toMillis());
    print("  graceful handover %s -> %s: %d ms", second, third, ms(handover));
    print(
        "DEMO-SUMMARY failoverMs=%d handoverMs=%d leaders=%s,%s,%s",
        ms(failover), ms(handover), first, second, third);
  }

  private String awaitLeader(String notThis) {
    return Awaitility.await("a new leader")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> leader, current -> current != null && !current.equals(notThis));
  }

  private LeaderCallbacks callbacksFor(String name) {
    return new LeaderCallbacks() {
      @Override
      public void onStartedLeading(Term term) {
        print("%-8s starts leading (fencing token %d)", name, term.fencingToken());
      }

      @Override
      public void onStoppedLeading(Term term, TermEnd reason) {
        print("%-8s stops leading: %s", name, reason);
      }
    };
  }

  private ElectorListener timelineFor(String name) {
    return new ElectorListener() {
      @Override
      public void onTermStarted(Term term) {
        synchronized (InMemoryDemo.this) {
          leaderSince = System.nanoTime();
          leader = name;
          termStart.put(name, leaderSince);
        }
      }

      @Override
      public void onTermEnded(Term term, TermEnd reason) {
        synchronized (InMemoryDemo.this) {
          long started = termStart.remove(name);
          terms.add(
              String.format(
                  "%-8s led from %6d ms to %6d ms (token %d, ended: %s)",
                  name,
                  ms(started - startNanos),
                  ms(System.nanoTime() - startNanos),
                  term.fencingToken(),
                  reason));
          if (name.equals(leader)) {
            leader = null;
          }
        }
      }
    };
  }

  private void print(String format, Object... args) {
    System.out.printf(
        "%7d ms  %s%n", ms(System.nanoTime() - startNanos), String.format(format, args));
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  /** A lock whose calls stop answering once killed, as a crashed process's would. */
  private static final class KillableLock implements LeaderLock {
    private final LeaderLock delegate;
    private volatile boolean killed;

    KillableLock(LeaderLock delegate) {
      this.delegate = delegate;
    }

    void kill() {
      killed = true;
    }

    @Override
    public CompletionStage<LockRead> read(Duration timeout) {
      return killed ? new CompletableFuture<>() : delegate.read(timeout);
    }

    @Override
    public CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout) {
      return killed ? new CompletableFuture<>() : delegate.create(record, timeout);
    }

    @Override
    public CompletionStage<LockWrite> update(
        String version, LeaderRecord record, Duration timeout) {
      return killed ? new CompletableFuture<>() : delegate.update(version, record, timeout);
    }

    @Override
    public String identity() {
      return delegate.identity();
    }

    @Override
    public String describe() {
      return delegate.describe();
    }
  }
}
