package dev.elector.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ForwardingLockTest {
  private static final LeaderRecord HELD =
      new LeaderRecord("a", Duration.ofSeconds(15), Instant.EPOCH, Instant.EPOCH, 1);

  private static final class Plain extends ForwardingLock {
    Plain(LeaderLock delegate) {
      super(delegate);
    }
  }

  private static final class Watched extends ForwardingWatchableLock {
    Watched(WatchableLock delegate) {
      super(delegate);
    }
  }

  @Test
  void passesEveryCallToTheDelegate() {
    InMemoryLockStore store = InMemoryLockStore.create("l");
    LeaderLock lock = new Plain(store.lockFor("a"));

    LockWrite created = lock.create(HELD).toCompletableFuture().join();
    String version = assertInstanceOf(LockWrite.Written.class, created).version();
    assertEquals(HELD, store.current().orElseThrow());
    LockRead read = lock.read().toCompletableFuture().join();
    assertEquals(HELD, assertInstanceOf(LockRead.Found.class, read).record());
    LeaderRecord renewed = HELD.withRenewTime(Instant.EPOCH.plusSeconds(2));
    assertInstanceOf(
        LockWrite.Written.class, lock.update(version, renewed).toCompletableFuture().join());
    assertEquals(renewed, store.current().orElseThrow());
    assertEquals("a", lock.identity());
    assertEquals(store.lockFor("a").describe(), lock.describe());
  }

  @Test
  void staysWatchableOnlyAsAForwardingWatchableLock() {
    InMemoryLockStore store = InMemoryLockStore.create("l");
    LeaderLock plain = new Plain(store.lockFor("a"));
    assertFalse(plain instanceof WatchableLock);

    List<LockRead> seen = new ArrayList<>();
    WatchableLock.Subscription watch = new Watched(store.lockFor("a")).watch(seen::add);
    store.overwrite(HELD);
    watch.close();
    assertTrue(
        seen.stream().anyMatch(r -> r instanceof LockRead.Found f && f.record().equals(HELD)),
        seen.toString());
  }

  @Test
  void rejectsANullDelegate() {
    assertThrows(NullPointerException.class, () -> new Plain(null));
  }
}
