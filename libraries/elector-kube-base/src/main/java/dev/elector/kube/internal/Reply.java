package dev.elector.kube.internal;

import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP answer of the API server read whole: status, the body as an object (null if it was none),
 * raw text, and the server's Retry-After.
 */
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
