package dev.elector.k8s;

import com.google.gson.JsonObject;
import dev.elector.ElectorListener;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.kube.internal.EventRecorder;
import dev.elector.time.MonotonicClock;
import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * Records client-go's leader election Events on the lock object through client-java: the shared
 * {@link EventRecorder} of elector-kube-base (rate limit, queue, one WARN on 403 naming the rule)
 * with the requests sent by the lock's {@link KubeHttp}.
 */
final class KubeEventRecorder implements ElectorListener {
  static final String REASON = EventRecorder.REASON;
  static final int BURST = EventRecorder.BURST;
  static final long REFILL_NANOS = EventRecorder.REFILL_NANOS;
  static final int MAX_INSTANCE = EventRecorder.MAX_INSTANCE;
  static final String RULE = EventRecorder.RULE;

  /** Sends one Event body; the lock's HTTP client in production. */
  @FunctionalInterface
  interface Sender {
    KubeHttp.Reply post(JsonObject event) throws IOException;
  }

  private final EventRecorder recorder;

  KubeEventRecorder(
      KubeObjectFormat format,
      String namespace,
      String name,
      String identity,
      String component,
      Supplier<String> uid,
      Sender sender,
      Executor executor,
      MonotonicClock clock,
      Clock wall,
      Logger log) {
    this.recorder =
        new EventRecorder(
            format.apiVersion(),
            format.kind(),
            namespace,
            name,
            identity,
            component,
            uid,
            event ->
                KubeListWatch.plain(sender.post(KubeListWatch.toTree(event).getAsJsonObject())),
            executor,
            clock,
            wall,
            log);
  }

  @Override
  public void onTermStarted(Term term) {
    recorder.onTermStarted(term);
  }

  @Override
  public void onTermEnded(Term term, TermEnd reason) {
    recorder.onTermEnded(term, reason);
  }

  void started(String leader) {
    recorder.started(leader);
  }

  void ended(String leader, TermEnd reason) {
    recorder.ended(leader, reason);
  }

  /** Events sent and answered with success, and those that failed; for tests. */
  long[] counts() {
    return recorder.counts();
  }
}
