package dev.elector.docs.snippets;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LockFailure;
import dev.elector.testkit.FaultyLock;
import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.VirtualTime;
import java.time.Duration;

/** The snippets of the testing guide. */
final class Testing {
  private Testing() {}

  static void virtualTime(LeaderCallbacks myCallbacks) {
    // tag::virtual-time[]
    VirtualTime time = VirtualTime.withSeed(42);
    InMemoryLockStore store = InMemoryLockStore.create("my-lock");
    FaultyLock lock = FaultyLock.wrap(store.lockFor("a"), time);
    LeadershipTimeline timeline = new LeadershipTimeline(time.clock());
    LeaderElector a = LeaderElector.start(time.configure(ElectorConfig.newBuilder())
        .lock(lock).callbacks(myCallbacks).listener(timeline.listenerFor("a")).build());
    time.advance(Duration.ofMinutes(5));              // five minutes of elections, instantly
    lock.failAll(LockFailure.Kind.UNAVAILABLE);       // partition the leader
    time.advanceUntil(() -> !a.isLeader(), Duration.ofSeconds(15));
    timeline.assertNoOverlap();                       // two leaders at once fails the test
    // end::virtual-time[]
  }
}
