package dev.elector.kube.internal;

import dev.elector.kube.KubeLock;
import dev.elector.kube.WatchMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A stand-in API server for a lock's requests: each request is noted as {@code "METHOD path"} and
 * answered by {@link #answer}; it has no watch and no JSON text, which these tests never need.
 */
abstract class ScriptedTransport implements ApiTransport {
  final List<String> requests = new CopyOnWriteArrayList<>();

  /**
   * The Lease lock {@code ns/lock} of identity {@code me} on this transport: per-lock watch, no
   * Events, calls run on the caller's thread, time from {@code time}.
   */
  final ObjectLock leaseLock(LockTime time) {
    return new ObjectLock(
        new ObjectLock.Settings(
            ObjectKind.LEASE,
            new Object(),
            this,
            "ns",
            "lock",
            "me",
            null,
            Runnable::run,
            WatchMode.PER_LOCK,
            null,
            time));
  }

  /** The answer to one request. */
  abstract Reply answer(String method, String path, @Nullable Object body) throws Exception;

  @Override
  public final Reply send(
      String method,
      String path,
      Map<String, String> query,
      @Nullable Object body,
      @Nullable String contentType,
      Duration timeout,
      Abort abort)
      throws Exception {
    requests.add(method + " " + path);
    return answer(method, path, body);
  }

  @Override
  public Duration timeout() {
    return KubeLock.DEFAULT_REQUEST_TIMEOUT;
  }

  @Override
  public WatchStream stream(String path, Map<String, String> query, Duration total) {
    throw new AssertionError("no watch here");
  }

  @Override
  public @Nullable Object parseJson(String text) {
    throw new AssertionError("no JSON text here");
  }

  @Override
  public String writeJson(@Nullable Object value) {
    throw new AssertionError("no JSON text here");
  }
}
