package dev.elector.kube.internal;

import dev.elector.lock.LockFailure;
import dev.elector.time.MonotonicClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The list-then-watch loop over one collection, for any client: the backend supplies a {@link
 * Transport}, objects are plain maps as a JSON parser gives them. The loop runs in steps, each one
 * request (a list, or a watch until it ends), on the {@link LockTime}'s scheduler (by default a
 * daemon thread of its own); it waits between steps only by scheduling the next one, and reads time
 * and jitter only from the {@link LockTime}, so a test drives it in virtual time. After every
 * (re)list it hands over the listed objects; then each change. Every list and watch request goes
 * through a {@link WatchPacer}, so the loop keeps its documented bound whatever the server or a
 * proxy does: at most {@value WatchPacer#BURST} + T / 1 s requests in any interval T, and a
 * back-off of 0.5 s doubling to 30 s (plus up to a fifth) after a failure, a watch that ends at
 * once without an event, or a 410 Gone right after a list. Each of those is handed over as a break,
 * so that followers poll meanwhile. The end of a watch's server-side timeout reconnects from the
 * last resourceVersion, and a 410 Gone on a watch that had been useful lists again, both without
 * delay. Subclasses decide what the objects mean and whom to tell.
 */
public abstract class ListWatchLoop {
  private static final Logger log = LoggerFactory.getLogger(ListWatchLoop.class);

  /** How the loop reaches the API server; implemented per client. */
  public interface Transport {
    /** Lists the collection (with the loop's selector) within the request timeout. */
    Reply list() throws Exception;

    /**
     * Prepares a watch from {@code resourceVersion} that the server ends after {@code
     * timeoutSeconds}; sends nothing until {@link WatchStream#open()}.
     */
    WatchStream watch(String resourceVersion, long timeoutSeconds);
  }

  /** The watch broke; carries the failure to hand over and the server's Retry-After. */
  private static final class Broken extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient LockFailure failure;
    private final transient Duration retryAfter;

    Broken(LockFailure failure) {
      this(failure, Duration.ZERO);
    }

    Broken(LockFailure failure, Duration retryAfter) {
      super(failure.message(), null, false, false);
      this.failure = failure;
      this.retryAfter = retryAfter;
    }
  }

  private final Transport transport;
  private final FailureText failures;
  private final long requestTimeoutMillis;
  private final MonotonicClock clock;
  private final RandomGenerator random;
  private final WatchPacer pacer;
  private final LoopSteps steps;
  private volatile @Nullable WatchStream current;

  // only the step in progress: where the loop goes on
  private @Nullable String version; // null: list next
  private boolean afterList;

  /**
   * A loop on the real clock, on a daemon thread of its own.
   *
   * @param transport how to list and watch
   * @param failures what failures are about, for their messages
   * @param requestTimeout the timeout of a list, as messages name it
   */
  protected ListWatchLoop(Transport transport, FailureText failures, Duration requestTimeout) {
    this(transport, failures, requestTimeout, LockTime.SYSTEM);
  }

  /**
   * A loop that reads time, waits and draws jitter through {@code time}.
   *
   * @param transport how to list and watch
   * @param failures what failures are about, for their messages
   * @param requestTimeout the timeout of a list, as messages name it
   * @param time the clock, the scheduler of the steps and the randomness
   */
  protected ListWatchLoop(
      Transport transport, FailureText failures, Duration requestTimeout, LockTime time) {
    this.transport = transport;
    this.failures = failures;
    this.requestTimeoutMillis = requestTimeout.toMillis();
    this.clock = time.clock();
    this.random = time.randomFor();
    this.pacer = new WatchPacer(clock::nanos, random);
    this.steps = new LoopSteps(time.scheduler(), () -> log.debug("{}: watch closed", describe()));
  }

  /** What the logs call this watch. */
  protected abstract String describe();

  /** Every object of a completed list, in the server's order: the whole state. */
  protected abstract void listed(List<Map<String, Object>> objects);

  /** One ADDED, MODIFIED or DELETED event. */
  protected abstract void changed(String type, Map<String, Object> object);

  /**
   * The watch broke; it reconnects by itself.
   *
   * @param firstInARow whether this is the first failure since the start or since a watch stayed
   *     open for 30 s (a list that succeeds between failures does not end a streak)
   */
  protected abstract void broke(LockFailure failure, boolean firstInARow);

  /**
   * Starts the loop: its first step on the injected scheduler, or on a daemon thread of its own
   * named {@code threadPrefix} and a count.
   *
   * @throws IllegalStateException if started before
   */
  public final void start(String threadPrefix) {
    if (!steps.start(threadPrefix)) {
      throw new IllegalStateException(describe() + ": already started");
    }
    steps.schedule(this::step, 0);
  }

  /** Stops the loop and cancels the open request; a step not yet started never runs. Idempotent. */
  public final void stop() {
    steps.markStopped();
    WatchStream stream = current;
    if (stream != null) {
      stream.cancel();
    }
    steps.cancelPending();
  }

  /** Whether {@link #stop()} was called. */
  public final boolean isStopped() {
    return steps.stopped();
  }

  /**
   * One step: a list, or a watch until it ends; then the next step after what the pacer asks for.
   */
  private void step() {
    steps.began();
    if (steps.stopped()) {
      steps.finish();
      return;
    }
    if (pacer.delayNanos() == 0) {
      try {
        if (version == null) {
          version = list();
          afterList = true;
        } else {
          version = watchFrom(version, afterList);
          afterList = false;
        }
      } catch (Broken broken) {
        if (!steps.stopped()) {
          boolean first = pacer.streak() == 0;
          Duration backoff = pacer.failed(broken.retryAfter);
          log.debug(
              "{}: watch broke, reconnecting in {} ms: {}",
              describe(),
              backoff.toMillis(),
              broken.failure);
          hand(() -> broke(broken.failure, first));
          version = null;
        }
      }
    }
    steps.schedule(this::step, pacer.delayNanos());
  }

  /** Lists the collection, hands over its objects and returns the list's resourceVersion. */
  private String list() throws Broken {
    Reply reply;
    pacer.sent();
    try {
      reply = transport.list();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Broken(failures.fromTransport("list", e, requestTimeoutMillis));
    } catch (Exception e) {
      throw new Broken(failures.fromTransport("list", e, requestTimeoutMillis));
    }
    if (!reply.ok()) {
      throw new Broken(
          failures.fromStatus("list", reply.code(), reply.statusMessage()), reply.retryAfter());
    }
    Map<String, Object> body = reply.body();
    String version = ObjectFields.resourceVersion(body);
    Object items = body == null ? null : body.get("items");
    if (version == null || !(items == null || items instanceof List)) {
      throw new Broken(
          LockFailure.of(
              LockFailure.Kind.UNEXPECTED,
              "the list of " + describe() + " has no resourceVersion or no items"));
    }
    List<Map<String, Object>> objects = new ArrayList<>();
    if (items instanceof List<?> found) {
      for (Object item : found) {
        Map<String, Object> object = ObjectFields.asObject(item);
        if (object != null) {
          objects.add(object);
        }
      }
    }
    hand(() -> listed(objects));
    return version;
  }

  /**
   * Watches from {@code version}; returns where to go on, or null to list again (410 Gone on a
   * watch that had been useful).
   */
  private @Nullable String watchFrom(String version, boolean afterList) throws Broken {
    long timeoutSeconds = 240 + random.nextLong(60);
    String last = version;
    long opened = clock.nanos();
    boolean sawEvent = false;
    pacer.sent();
    try (WatchStream stream = transport.watch(version, timeoutSeconds)) {
      current = stream;
      if (steps.stopped()) {
        stream.cancel();
        return null;
      }
      Reply refused = stream.open();
      if (refused != null) {
        if (refused.code() == 410) {
          return gone(opened, afterList);
        }
        throw new Broken(
            failures.fromStatus("watch", refused.code(), refused.statusMessage()),
            refused.retryAfter());
      }
      Map<String, Object> event;
      while (!steps.stopped() && (event = stream.next()) != null) {
        String next = onEvent(event, last);
        if (next == null) {
          return gone(opened, afterList);
        }
        sawEvent = true;
        last = next;
      }
      if (!steps.stopped() && !sawEvent && pacer.isShort(opened)) {
        throw new Broken(
            LockFailure.of(
                LockFailure.Kind.UNAVAILABLE,
                "the watch of "
                    + describe()
                    + " ended after "
                    + millisSince(opened)
                    + " ms without an event (an"
                    + " idle timeout of a proxy or load balancer, or an overloaded server?); followers"
                    + " poll until a watch lasts"));
      }
      return last;
    } catch (Broken broken) {
      throw broken;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      if (steps.stopped()) {
        return null;
      }
      throw new Broken(failures.fromTransport("watch", e, requestTimeoutMillis));
    } finally {
      current = null;
      pacer.watchClosed(opened);
    }
  }

  /**
   * 410 Gone: list again; at once when the watch resumed from an older watch, with back-off when
   * the version of a fresh list was gone at once.
   */
  private @Nullable String gone(long opened, boolean afterList) throws Broken {
    if (!steps.stopped() && afterList && pacer.isShort(opened)) {
      throw new Broken(
          LockFailure.of(
              LockFailure.Kind.UNAVAILABLE,
              "the watch of "
                  + describe()
                  + " answered 410 Gone "
                  + millisSince(opened)
                  + " ms after a list; followers poll until"
                  + " a watch lasts"));
    }
    return null;
  }

  private long millisSince(long nanos) {
    return (clock.nanos() - nanos) / 1_000_000;
  }

  private @Nullable String onEvent(Map<String, Object> event, String last) throws Broken {
    Map<String, Object> object = ObjectFields.asObject(event.get("object"));
    if (object == null || !(event.get("type") instanceof String type)) {
      throw new Broken(
          LockFailure.of(LockFailure.Kind.UNEXPECTED, "unreadable watch event on " + describe()));
    }
    if (type.equals("ERROR")) {
      int status = object.get("code") instanceof Number code ? code.intValue() : 500;
      if (status == 410) {
        return null;
      }
      String message = object.get("message") instanceof String m ? m : String.valueOf(object);
      throw new Broken(failures.fromStatus("watch", status, message));
    }
    String version = ObjectFields.resourceVersion(object);
    switch (type) {
      case "ADDED", "MODIFIED", "DELETED" -> hand(() -> changed(type, object));
      default -> {} // BOOKMARK: only moves the resourceVersion on
    }
    return version != null ? version : last;
  }

  private void hand(Runnable delivery) {
    if (steps.stopped()) {
      return;
    }
    try {
      delivery.run();
    } catch (RuntimeException e) {
      log.warn("{}: watch listener failed: {}", describe(), e.toString());
    }
  }
}
