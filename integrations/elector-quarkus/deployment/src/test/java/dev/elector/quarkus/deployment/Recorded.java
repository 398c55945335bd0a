package dev.elector.quarkus.deployment;

import dev.elector.quarkus.LeadershipGranted;
import dev.elector.quarkus.LeadershipRevoked;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An application bean that records the elector's events, with the thread each came on. */
@Singleton
public class Recorded {
  final List<LeadershipGranted> granted = new CopyOnWriteArrayList<>();
  final List<LeadershipRevoked> revoked = new CopyOnWriteArrayList<>();
  final List<String> threads = new CopyOnWriteArrayList<>();

  void granted(@Observes LeadershipGranted event) {
    threads.add(Thread.currentThread().getName());
    granted.add(event);
  }

  void revoked(@Observes LeadershipRevoked event) {
    threads.add(Thread.currentThread().getName());
    revoked.add(event);
  }
}
