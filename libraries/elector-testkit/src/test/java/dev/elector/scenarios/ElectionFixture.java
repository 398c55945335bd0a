package dev.elector.scenarios;

import dev.elector.ElectorConfig;
import dev.elector.ElectorListener;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.testkit.FaultyLock;
import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.VirtualTime;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A test fixture: candidates contending for one in-memory lock on virtual time, each behind its own
 * {@link FaultyLock}, all reporting to one {@link LeadershipTimeline} and one transcript.
 */
class ElectionFixture {
  final VirtualTime time;
  final InMemoryLockStore store = InMemoryLockStore.create("test-lock");
  final LeadershipTimeline timeline;
  final Map<String, Candidate> candidates = new LinkedHashMap<>();
  final List<String> transcript = new ArrayList<>();
  private final UnaryOperator<ElectorConfig.Builder> tuning;

  final class Candidate {
    final String name;
    final FaultyLock lock;
    final Clock wall;
    LeaderElector elector;
    int started;
    int stopped;
    final List<Term> terms = new ArrayList<>();

    Candidate(String name) {
      this.name = name;
      this.lock = FaultyLock.wrap(store.lockFor(name), time);
      this.wall = time.newWallClock();
    }

    /** Jumps this candidate's wall clock, as NTP or an operator might. */
    void jumpWallClock(Duration by) {
      time.jumpWallClock(wall, by);
    }

    LeaderElector start(UnaryOperator<ElectorConfig.Builder> extra) {
      ElectorListener toTimeline = timeline.listenerFor(name);
      LeaderCallbacks callbacks =
          new LeaderCallbacks() {
            @Override
            public void onStartedLeading(Term term) {
              started++;
              terms.add(term);
              log(name + " started leading, token " + term.fencingToken());
            }

            @Override
            public void onStoppedLeading(Term term, TermEnd reason) {
              stopped++;
              log(name + " stopped leading: " + reason);
            }
          };
      ElectorConfig.Builder builder =
          time.configure(ElectorConfig.newBuilder(), wall)
              .lock(lock)
              .callbacks(callbacks)
              .listener(toTimeline);
      elector = LeaderElector.start(extra.apply(tuning.apply(builder)).build());
      return elector;
    }

    boolean leading() {
      return elector != null && elector.isLeader();
    }
  }

  ElectionFixture(long seed) {
    this(seed, UnaryOperator.identity());
  }

  ElectionFixture(long seed, UnaryOperator<ElectorConfig.Builder> tuning) {
    this.time = VirtualTime.withSeed(seed);
    this.timeline = new LeadershipTimeline(time.clock());
    this.tuning = tuning;
  }

  Candidate add(String name) {
    Candidate candidate = new Candidate(name);
    candidates.put(name, candidate);
    return candidate;
  }

  Candidate start(String name) {
    Candidate candidate = add(name);
    candidate.start(UnaryOperator.identity());
    return candidate;
  }

  Candidate candidate(String name) {
    return candidates.get(name);
  }

  List<Candidate> leaders() {
    return candidates.values().stream().filter(Candidate::leading).toList();
  }

  Candidate onlyLeader() {
    List<Candidate> leaders = leaders();
    if (leaders.size() != 1) {
      throw new AssertionError(
          "expected exactly one leader, found "
              + leaders.stream().map(c -> c.name).toList()
              + "\n"
              + String.join("\n", transcript));
    }
    return leaders.get(0);
  }

  void advance(Duration duration) {
    time.advance(duration);
  }

  Duration advanceUntil(java.util.function.BooleanSupplier condition, Duration limit) {
    return time.advanceUntil(condition, limit);
  }

  void log(String line) {
    transcript.add(String.format("%10.3fs %s", time.elapsed().toNanos() / 1e9, line));
  }

  /**
   * Closes every started candidate, lets a minute of virtual time pass (answers the fault injection
   * delayed arrive) and fails if anything is still scheduled: a timer or step that outlived its
   * elector.
   */
  void closeAll() {
    time.close(
        candidates.values().stream()
            .filter(c -> c.elector != null)
            .map(c -> c.elector)
            .toArray(LeaderElector[]::new));
    time.advance(Duration.ofMinutes(1));
    time.assertNoMoreTasks();
  }
}
