package dev.elector.kube.internal;

import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How a lock reaches the API server through one client: raw JSON requests on plain values, with the
 * client's own authentication and TLS. The only part of a lock that depends on the client library;
 * everything above it (which requests, their bodies, what answers mean) is {@link ObjectLock}'s,
 * the same for every client.
 */
public interface ApiTransport extends JsonCodec {
  /** The content type of a JSON merge patch. */
  String MERGE_PATCH = "application/merge-patch+json";

  /**
   * Sends one request and reads the whole answer within {@code timeout}, unless {@code abort} stops
   * it first: the transport registers with {@link Abort#onAbort} what ends its exchange at once and
   * frees the calling thread, and sends nothing once it is aborted.
   *
   * @param path the absolute path, such as {@code
   *     /apis/coordination.k8s.io/v1/namespaces/ns/leases}
   * @param query query parameters, not yet encoded; empty for none
   * @param body the body as plain values (maps, lists, strings, numbers, booleans, null), written
   *     with {@link #writeJson} so that nulls stay in a merge patch; or null for none
   * @param contentType the body's content type; null for {@code application/json}
   * @param timeout the bound of the whole exchange, at most {@link #timeout()}: what is left of the
   *     caller's deadline
   * @throws Exception when there was no answer, such as an I/O error, the timeout or the abort
   */
  Reply send(
      String method,
      String path,
      Map<String, String> query,
      @Nullable Object body,
      @Nullable String contentType,
      Duration timeout,
      Abort abort)
      throws Exception;

  /**
   * Sends one request that nobody aborts (a watch's list, an Event): as {@link #send(String,
   * String, Map, Object, String, Duration, Abort)}, bounded by {@link #timeout()} alone.
   */
  default Reply send(
      String method,
      String path,
      Map<String, String> query,
      @Nullable Object body,
      @Nullable String contentType)
      throws Exception {
    return send(method, path, query, body, contentType, timeout(), new Abort());
  }

  /** The transport's own request timeout: the bound of a request without a shorter deadline. */
  Duration timeout();

  /**
   * Prepares a long-running GET (a watch): headers within the request timeout, no read timeout,
   * ended after {@code total} at the latest. Sends nothing before {@link WatchStream#open()}.
   */
  WatchStream stream(String path, Map<String, String> query, Duration total);
}
