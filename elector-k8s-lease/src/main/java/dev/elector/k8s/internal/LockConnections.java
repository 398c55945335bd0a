package dev.elector.k8s.internal;

import dev.elector.kube.internal.Abort;
import dev.elector.kube.internal.ClientState;
import dev.elector.kube.internal.DaemonThreads;
import dev.elector.kube.internal.Reply;
import dev.elector.kube.internal.WatchPacer;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * How a lock request reaches the API server on OkHttp: on a connection pool of the locks' own per
 * user client, with a timeout over the whole call and {@link Call#cancel()} on abort. A request
 * whose new connection is not ready (TCP and TLS) within a third of its timeout, as behind a
 * balancer that hands connections to an API server that has bound its port but does not serve yet,
 * gives that connection up and dials once more within its deadline: nothing was sent on it, so the
 * request count stays one. After a request without an answer the lock's idle connections are
 * closed: OkHttp ends only the timed-out HTTP/2 stream, and would otherwise send the next request
 * on a connection that may be dead.
 */
final class LockConnections {
  /** A second dial is worth it only with at least this much of the deadline left. */
  static final long MIN_SECOND_DIAL_MILLIS = 100;

  /** Gives up on connections that do not get ready in time (see {@link #send}). */
  private static final ScheduledExecutorService SETUP_CHECKS = setupChecks();

  private static ScheduledExecutorService setupChecks() {
    ScheduledThreadPoolExecutor checks =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.factory("elector-kube-setup-"));
    checks.setRemoveOnCancelPolicy(true); // a check is cancelled once its request has an answer
    return checks;
  }

  private LockConnections() {}

  /** Sends {@code request} through {@code user}'s lock client and reads the whole answer. */
  static Reply send(OkHttpClient user, Request request, Duration timeout, Abort abort)
      throws IOException {
    OkHttpClient http = lockClient(user);
    long deadline = System.nanoTime() + timeout.toNanos();
    Setup first = new Setup();
    try {
      return execute(http, request, first, Math.max(1, timeout.toMillis()), abort, true);
    } catch (IOException e) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (!first.stalled || abort.aborted() || left < MIN_SECOND_DIAL_MILLIS) {
        evictAfterFailure(http);
        throw e;
      }
      // The first connection was accepted but never got ready (a server that has bound its port
      // but does not serve yet, behind a balancer); the request was not sent. Dial again: a new
      // connection may reach another server.
      try {
        return execute(http, request, new Setup(), left, abort, false);
      } catch (IOException again) {
        evictAfterFailure(http);
        throw again;
      }
    }
  }

  /**
   * Runs one attempt of a lock request within {@code millis}. With {@code boundSetup}, an attempt
   * whose connection is not ready (TCP and TLS) within a third of {@code millis} is cancelled and
   * marked {@link Setup#stalled}: nothing was sent on it.
   */
  private static Reply execute(
      OkHttpClient http, Request request, Setup setup, long millis, Abort abort, boolean boundSetup)
      throws IOException {
    Call call = http.newCall(request.newBuilder().tag(Setup.class, setup).build());
    call.timeout().timeout(millis, TimeUnit.MILLISECONDS);
    // Cancelling ends the exchange and makes execute() throw at once; before it, execute() throws
    // without sending anything.
    abort.onAbort(call::cancel);
    ScheduledFuture<?> check = null;
    if (boundSetup && millis >= 3 * MIN_SECOND_DIAL_MILLIS) {
      check =
          SETUP_CHECKS.schedule(
              () -> {
                if (setup.stallIfNotConnected()) {
                  call.cancel();
                }
              },
              millis / 3,
              TimeUnit.MILLISECONDS);
    }
    try (Response response = call.execute()) {
      return reply(response);
    } finally {
      if (check != null) {
        check.cancel(false);
      }
    }
  }

  /** A response read whole, the body parsed with Gson. */
  static Reply reply(Response response) throws IOException {
    ResponseBody responseBody = response.body();
    String text = responseBody == null ? "" : responseBody.string();
    return new Reply(
        response.code(),
        GsonValues.parseObject(text),
        text,
        WatchPacer.retryAfter(response.header("Retry-After")));
  }

  /**
   * The client for lock requests: the user's client (its authentication, TLS and interceptors) on a
   * connection pool of its own, so that dropping the lock's connections after a failure never
   * touches the user's, with an interceptor that marks a request's connection as ready.
   */
  private static OkHttpClient lockClient(OkHttpClient user) {
    return ClientState.of(user)
        .attached(
            LockClient.class,
            () ->
                new LockClient(
                    user.newBuilder()
                        .connectionPool(new ConnectionPool())
                        .addNetworkInterceptor(
                            chain -> {
                              Setup setup = chain.request().tag(Setup.class);
                              if (setup != null) {
                                setup.connected();
                              }
                              return chain.proceed(chain.request());
                            })
                        .build()))
        .http();
  }

  /** The lock-request client of one user client, kept with its {@link ClientState}. */
  private record LockClient(OkHttpClient http) {}

  /**
   * After a lock request that got no answer (timeout, I/O error), closes the lock's idle
   * connections: the next request dials afresh instead of trusting a connection that may be dead.
   */
  private static void evictAfterFailure(OkHttpClient http) {
    http.connectionPool().evictAll();
  }

  /** Whether one attempt's connection became ready, or was given up before. */
  private static final class Setup {
    private boolean connected;
    private boolean stalled;

    synchronized void connected() {
      connected = true;
    }

    /** Marks the attempt stalled unless its connection is ready; returns whether it did. */
    synchronized boolean stallIfNotConnected() {
      if (!connected) {
        stalled = true;
      }
      return stalled;
    }
  }
}
