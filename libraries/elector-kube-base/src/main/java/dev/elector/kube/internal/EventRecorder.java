package dev.elector.kube.internal;

import dev.elector.ElectorListener;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.internal.time.TokenBucket;
import dev.elector.time.MonotonicClock;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * Records client-go's leader election Events on the lock object: {@code <identity> became leader}
 * and {@code <identity> stopped leading}, reason {@value #REASON}, as core/v1 Events.
 *
 * <p>The elector calls this on its own thread; this only decides (the rate limit) and queues. The
 * request goes out on the lock's executor, one at a time per lock, in order. At most {@value
 * #BURST} events go out at once, then one per minute; what the limit held back is counted in the
 * next event's message. A 403 is reported once per namespace and identity in this process, at WARN,
 * with the Role rule to add; the election never depends on an event. Shared by the client-java and
 * fabric8 backends, which supply the request.
 */
public final class EventRecorder implements ElectorListener {
  /** The reason of every event. */
  public static final String REASON = "LeaderElection";

  /** Events that may go out at once. */
  public static final int BURST = 6;

  /** One more event may go out per this many nanoseconds. */
  public static final long REFILL_NANOS = 60_000_000_000L;

  /** The longest reportingInstance. */
  public static final int MAX_INSTANCE = 128;

  /** The Role rule that allows the events. */
  public static final String RULE =
      "{apiGroups: [\"\"], resources: [\"events\"], verbs: [\"create\"]}";

  /** Sends one Event body; the lock's HTTP client in production. */
  @FunctionalInterface
  public interface Sender {
    /** POSTs the event; the answer, or an exception when there was none. */
    Reply post(Map<String, Object> event) throws Exception;
  }

  private final String apiVersion;
  private final String kind;
  private final String namespace;
  private final String name;
  private final String identity;
  private final String component;
  private final Supplier<@Nullable String> uid;
  private final Sender sender;
  private final Executor executor;
  private final MonotonicClock clock;
  private final Clock wall;
  private final Predicate<String> firstReport;
  private final Logger log;
  private final String subject;

  // Guarded by this.
  private final ArrayDeque<Map<String, Object>> queue = new ArrayDeque<>();
  private boolean draining;
  private final TokenBucket bucket = TokenBucket.of(BURST, Duration.ofNanos(REFILL_NANOS));
  private long heldBack;
  private boolean failureReported;
  private long sent;
  private long failed;

  /**
   * @param apiVersion the lock object's apiVersion, such as {@code coordination.k8s.io/v1}
   * @param kind the lock object's kind, such as {@code Lease}
   * @param uid the lock object's uid as last seen, or null
   * @param firstReport whether a refusal is reported for the first time, shared by the recorders of
   *     one client, so that a refusal is reported once per client
   */
  public EventRecorder(
      String apiVersion,
      String kind,
      String namespace,
      String name,
      String identity,
      String component,
      Supplier<@Nullable String> uid,
      Sender sender,
      Executor executor,
      MonotonicClock clock,
      Clock wall,
      Predicate<String> firstReport,
      Logger log) {
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.namespace = namespace;
    this.name = name;
    this.identity = identity;
    this.component = component;
    this.uid = uid;
    this.sender = sender;
    this.executor = executor;
    this.clock = clock;
    this.wall = wall;
    this.firstReport = firstReport;
    this.log = log;
    this.subject = kind + " " + namespace + "/" + name;
    bucket.delayNanos(clock.nanos()); // full from now on
  }

  @Override
  public void onTermStarted(Term term) {
    started(term.identity());
  }

  @Override
  public void onTermEnded(Term term, TermEnd reason) {
    ended(term.identity(), reason);
  }

  /** Records that {@code leader} became leader. */
  public void started(String leader) {
    record("became leader", "Normal", "BecameLeader", leader);
  }

  /** Records that {@code leader} stopped leading, and why. */
  public void ended(String leader, TermEnd reason) {
    switch (reason) {
      case CLOSED:
        record("stopped leading (closed)", "Normal", "StoppedLeading", leader);
        break;
      case LOCK_LOST:
        record("stopped leading: someone else wrote the lock", "Warning", "StoppedLeading", leader);
        break;
      case STEPPED_DOWN:
        record("stopped leading (stepped down)", "Normal", "StoppedLeading", leader);
        break;
      default:
        record(
            "stopped leading: could not renew within renewDeadline",
            "Warning",
            "StoppedLeading",
            leader);
        break;
    }
  }

  /** Events sent and answered with success, and those that failed; for tests. */
  public synchronized long[] counts() {
    return new long[] {sent, failed};
  }

  private synchronized void record(String what, String type, String action, String leader) {
    if (bucket.tryAcquire(clock.nanos()) > 0) {
      heldBack++;
      log.debug("{}: event \"{} {}\" not recorded: rate limit", subject, leader, what);
      return;
    }
    String message =
        leader
            + " "
            + what
            + (heldBack == 0
                ? ""
                : " ("
                    + heldBack
                    + " earlier"
                    + " leader election events were not recorded: at most "
                    + BURST
                    + " at once, then one a"
                    + " minute)");
    heldBack = 0;
    queue.add(event(message, type, action));
    if (!draining) {
      draining = true;
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException e) {
        draining = false;
        queue.clear();
        log.debug("{}: the executor rejected the event request: {}", subject, e.toString());
      }
    }
  }

  private Map<String, Object> event(String message, String type, String action) {
    String now =
        DateTimeFormatter.ISO_INSTANT.format(wall.instant().truncatedTo(ChronoUnit.SECONDS));
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("generateName", name + ".");
    metadata.put("namespace", namespace);
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("apiVersion", "v1");
    event.put("kind", "Event");
    event.put("metadata", metadata);
    event.put("reason", REASON);
    event.put("message", message);
    event.put("type", type);
    event.put("action", action);
    event.put("source", Map.of("component", component));
    event.put("reportingComponent", component);
    event.put(
        "reportingInstance",
        identity.length() <= MAX_INSTANCE ? identity : identity.substring(0, MAX_INSTANCE));
    event.put("firstTimestamp", now);
    event.put("lastTimestamp", now);
    event.put("count", 1);
    return event;
  }

  private void drain() {
    while (true) {
      Map<String, Object> event;
      synchronized (this) {
        event = queue.poll();
        if (event == null) {
          draining = false;
          return;
        }
      }
      send(event);
    }
  }

  private void send(Map<String, Object> event) {
    Map<String, Object> involved = new LinkedHashMap<>();
    involved.put("apiVersion", apiVersion);
    involved.put("kind", kind);
    involved.put("namespace", namespace);
    involved.put("name", name);
    String objectUid = uid.get();
    if (objectUid != null) {
      involved.put("uid", objectUid); // kubectl describe matches events by uid
    }
    event.put("involvedObject", involved);
    String message = (String) event.get("message");
    Reply reply;
    try {
      reply = sender.post(event);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      failed(message, e.toString());
      return;
    }
    if (reply.ok()) {
      synchronized (this) {
        sent++;
        failureReported = false;
      }
      log.debug("{}: recorded event \"{}\"", subject, message);
    } else if (reply.code() == 403) {
      synchronized (this) {
        failed++;
      }
      if (firstReport.test("events forbidden " + namespace + " " + identity)) {
        log.warn(
            "{}: {} may not create Events in namespace {} (403: {}), so leader election"
                + " events are not recorded; the election is not affected. To record them, add the"
                + " rule {} to a Role in namespace {} bound to this identity (see deploy/{}/"
                + "rbac-events.yaml), or build the lock without recordEvents(true). Reported once.",
            subject,
            identity,
            namespace,
            reply.statusMessage(),
            RULE,
            namespace,
            kind.toLowerCase(java.util.Locale.ROOT));
      } else {
        log.debug("{}: event \"{}\" forbidden (403)", subject, message);
      }
    } else {
      failed(message, reply.code() + ": " + reply.statusMessage());
    }
  }

  private void failed(@Nullable String message, String why) {
    boolean report;
    synchronized (this) {
      failed++;
      report = !failureReported;
      failureReported = true;
    }
    if (report) {
      log.warn(
          "{}: could not record event \"{}\" ({}); the election is not affected. Further"
              + " failures go to DEBUG until an event is recorded again.",
          subject,
          message,
          why);
    } else {
      log.debug("{}: could not record event \"{}\" ({})", subject, message, why);
    }
  }
}
