package dev.elector.kube.internal;

import dev.elector.lock.LockFailure;
import dev.elector.time.Cancellable;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import dev.elector.time.ThreadScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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

  /** An HTTP answer read whole: status, the body as an object (null if it was none), raw text. */
  public record Reply(
      int code, @Nullable Map<String, Object> body, @Nullable String text, Duration retryAfter) {
    /** Whether the status is 2xx. */
    public boolean ok() {
      return code >= 200 && code < 300;
    }

    /** The message of a Kubernetes Status body, else the raw text. */
    public String statusMessage() {
      if (body != null && body.get("message") instanceof String message) {
        return message;
      }
      return text == null || text.isBlank() ? "HTTP " + code : text.strip();
    }
  }

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

  /** One watch request and its stream of events. */
  public interface WatchStream extends AutoCloseable {
    /** Sends the request; null when the server answered 2xx, else its answer read whole. */
    @Nullable Reply open() throws Exception;

    /**
     * The next event, parsed; null at the end of the stream. An unreadable line is an empty map.
     */
    @Nullable Map<String, Object> next() throws Exception;

    /** Aborts the request from any thread; {@link #open} and {@link #next} then fail or end. */
    void cancel();

    @Override
    void close();
  }

  /** Reads a watch response line by line; null at the end. */
  @FunctionalInterface
  public interface LineReader {
    /** The next line without its end, or null at the end of the stream. */
    @Nullable String readLine() throws Exception;
  }

  /**
   * The next event of a watch response, one JSON object a line: blank lines are skipped, an
   * unreadable line is an empty map, null is the end of the stream.
   *
   * @param parse the text as a JSON object, or null when it is none
   */
  public static @Nullable Map<String, Object> nextEvent(
      LineReader lines, Function<String, @Nullable Map<String, Object>> parse) throws Exception {
    String line;
    do {
      line = lines.readLine();
      if (line == null) {
        return null;
      }
    } while (line.isBlank());
    Map<String, Object> event = parse.apply(line);
    return event == null ? Map.of() : event;
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
  private final CountDownLatch ended = new CountDownLatch(1);
  private final LockTime time;
  private final MonotonicClock clock;
  private final RandomGenerator random;
  private final WatchPacer pacer;
  private volatile boolean closed;
  private volatile @Nullable WatchStream current;

  /** Where the steps run; set by {@link #start}. */
  private @Nullable Scheduler scheduler;

  /** The scheduler this loop made for itself, closed when it ends; null for an injected one. */
  private @Nullable ThreadScheduler own;

  /** The next step, scheduled and not yet started; guarded by this. */
  private @Nullable Cancellable next;

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
    this.time = time;
    this.clock = time.clock();
    this.random = time.randomFor();
    this.pacer = new WatchPacer(clock::nanos, random);
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
    Scheduler injected = time.scheduler();
    synchronized (this) {
      if (scheduler != null) {
        throw new IllegalStateException(describe() + ": already started");
      }
      if (injected == null) {
        String name =
            threadPrefix.endsWith("-")
                ? threadPrefix.substring(0, threadPrefix.length() - 1)
                : threadPrefix;
        ThreadScheduler made = Scheduler.newThreadScheduler(1, name);
        own = made;
        scheduler = made;
      } else {
        scheduler = injected;
      }
    }
    schedule(0);
  }

  /**
   * Waits up to {@code timeout} for the step in progress to end after {@link #stop()}; not on the
   * loop's own thread.
   */
  public final void awaitStopped(Duration timeout) {
    ThreadScheduler made;
    synchronized (this) {
      made = own;
      if (scheduler == null) {
        return; // never started
      }
    }
    if (made != null) {
      made.awaitTermination(timeout.toMillis());
      return;
    }
    try {
      var unused = ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the loop and cancels the open request; a step not yet started never runs. Idempotent. */
  public final void stop() {
    closed = true;
    WatchStream stream = current;
    if (stream != null) {
      stream.cancel();
    }
    Cancellable pending;
    synchronized (this) {
      pending = next;
      next = null;
    }
    if (pending != null && pending.cancel()) {
      finish();
    }
  }

  /** Whether {@link #stop()} was called. */
  public final boolean isStopped() {
    return closed;
  }

  /** The loop has ended: no step runs any more. */
  private void finish() {
    ended.countDown();
    ThreadScheduler made;
    synchronized (this) {
      made = own;
    }
    if (made != null) {
      made.close(); // from its own thread it does not wait for itself
    }
    log.debug("{}: watch closed", describe());
  }

  /** Schedules the next step after {@code delayNanos}, unless stopped. */
  private void schedule(long delayNanos) {
    Scheduler on;
    synchronized (this) {
      on = scheduler;
      if (!closed && on != null) {
        next = on.schedule(this::step, delayNanos);
        return;
      }
    }
    finish();
  }

  /**
   * One step: a list, or a watch until it ends; then the next step after what the pacer asks for.
   */
  private void step() {
    synchronized (this) {
      next = null;
    }
    if (closed) {
      finish();
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
        if (!closed) {
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
    schedule(pacer.delayNanos());
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
      if (closed) {
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
      while (!closed && (event = stream.next()) != null) {
        String next = onEvent(event, last);
        if (next == null) {
          return gone(opened, afterList);
        }
        sawEvent = true;
        last = next;
      }
      if (!closed && !sawEvent && pacer.isShort(opened)) {
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
      if (closed) {
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
    if (!closed && afterList && pacer.isShort(opened)) {
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
    if (closed) {
      return;
    }
    try {
      delivery.run();
    } catch (RuntimeException e) {
      log.warn("{}: watch listener failed: {}", describe(), e.toString());
    }
  }
}
