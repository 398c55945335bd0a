package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * A lock that is also an {@link ElectorListener} hears the elector after the configured listener,
 * once, with nothing to wire.
 */
class LockAsListenerTest {
  private final List<String> heard = new ArrayList<>();
  private final LeaderCallbacks callbacks = LeaderCallbacks.of(t -> {}, (t, r) -> {});

  private ElectorListener recording(String who) {
    return new ElectorListener() {
      @Override
      public void onTermStarted(Term term) {
        heard.add(who + " started " + term.fencingToken());
      }

      @Override
      public void onTermEnded(Term term, TermEnd reason) {
        heard.add(who + " ended " + reason);
      }
    };
  }

  /** A lock that records what it hears, as a Kubernetes lock records Events. */
  private final class Listening implements LeaderLock, ElectorListener {
    private final LeaderLock delegate;

    Listening(LeaderLock delegate) {
      this.delegate = delegate;
    }

    @Override
    public CompletionStage<LockRead> read(Duration timeout) {
      return delegate.read(timeout);
    }

    @Override
    public CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout) {
      return delegate.create(record, timeout);
    }

    @Override
    public CompletionStage<LockWrite> update(
        String expectedVersion, LeaderRecord record, Duration timeout) {
      return delegate.update(expectedVersion, record, timeout);
    }

    @Override
    public String identity() {
      return delegate.identity();
    }

    @Override
    public String describe() {
      return delegate.describe();
    }

    @Override
    public void onTermStarted(Term term) {
      heard.add("lock started " + term.fencingToken());
    }

    @Override
    public void onTermEnded(Term term, TermEnd reason) {
      heard.add("lock ended " + reason);
    }
  }

  /** A config whose lock listens, with a configured listener besides. */
  private ElectorConfig listeningLockAndConfiguredListener() {
    return ElectorConfig.newBuilder()
        .lock(new Listening(InMemoryLockStore.create("l").lockFor("me")))
        .callbacks(callbacks)
        .listener(recording("configured"))
        .build();
  }

  private static Term term() {
    return new Term("me", "l", 7, Instant.EPOCH, Runnable::run, () -> 0, 1);
  }

  @Test
  void theLocksListenerHearsAfterTheConfiguredOneAndOnlyOnceAfterToBuilder() {
    ElectorConfig config = listeningLockAndConfiguredListener();
    ElectorConfig copy = config.toBuilder().build();

    copy.notifiedListener().onTermStarted(term());
    copy.notifiedListener().onTermEnded(term(), TermEnd.CLOSED);

    assertEquals(
        List.of(
            "configured started 7",
            "lock started 7",
            "configured ended CLOSED",
            "lock ended CLOSED"),
        heard);
  }

  @Test
  void aCopyGivenTheConfiguredListenerNotifiesTheLockOnce() {
    ElectorConfig config = listeningLockAndConfiguredListener();
    ElectorConfig copy =
        ElectorConfig.newBuilder()
            .lock(config.lock())
            .callbacks(config.callbacks())
            .listener(config.listener())
            .build();

    copy.notifiedListener().onTermStarted(term());

    assertEquals(List.of("configured started 7", "lock started 7"), heard);
  }

  @Test
  void withoutAConfiguredListenerTheLockIsTheListener() {
    Listening lock = new Listening(InMemoryLockStore.create("l").lockFor("me"));
    ElectorConfig config = ElectorConfig.newBuilder().lock(lock).callbacks(callbacks).build();
    assertSame(lock, config.notifiedListener());
  }

  @Test
  void aLockThatDoesNotListenLeavesTheConfiguredListener() {
    ElectorListener configured = recording("configured");
    ElectorConfig config =
        ElectorConfig.newBuilder()
            .lock(InMemoryLockStore.create("l").lockFor("me"))
            .callbacks(callbacks)
            .listener(configured)
            .build();
    assertSame(configured, config.notifiedListener());
  }
}
