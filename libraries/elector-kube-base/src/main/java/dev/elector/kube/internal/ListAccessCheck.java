package dev.elector.kube.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A shared watch's transport that asks the API server, before its first list, whether this identity
 * may list the collection (a SelfSubjectAccessReview, which every authenticated identity may
 * create). When the answer is no, the list is not sent: the loop gets a 403 answer made here, so an
 * identity with the minimal Role moves its {@link dev.elector.kube.WatchMode#AUTO} locks to watches
 * of their own without a refused request in the API server's audit log. When the review cannot be
 * had (refused, an older server, an I/O error), the list is sent as it would be without the check.
 * One review per shared watch at most; only the loop's thread calls it.
 */
final class ListAccessCheck implements ListWatchLoop.Transport {
  static final String REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

  private final ListWatchLoop.Transport collection;
  private final ApiTransport http;
  private final Map<String, Object> review;
  private final BooleanSupplier wanted;
  private boolean asked;

  /**
   * @param wanted whether the answer can still matter when the first list is due: some lock would
   *     move to a watch of its own on a refusal, and none is known yet
   */
  ListAccessCheck(
      ListWatchLoop.Transport collection,
      ApiTransport http,
      String namespace,
      String group,
      String resource,
      BooleanSupplier wanted) {
    this.collection = collection;
    this.http = http;
    this.wanted = wanted;
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("namespace", namespace);
    attributes.put("verb", "list");
    attributes.put("group", group);
    attributes.put("resource", resource);
    this.review =
        Map.of(
            "apiVersion", "authorization.k8s.io/v1",
            "kind", "SelfSubjectAccessReview",
            "spec", Map.of("resourceAttributes", attributes));
  }

  @Override
  public Reply list() throws Exception {
    if (!asked && wanted.getAsBoolean()) {
      asked = true;
      if (refused()) {
        return new Reply(
            403,
            Map.of(
                "message",
                "a SelfSubjectAccessReview answered that this identity may not list them,"
                    + " so no list was sent"),
            null,
            Duration.ZERO);
      }
    }
    return collection.list();
  }

  /** True only when the server answered the review with {@code allowed: false}. */
  private boolean refused() {
    Reply answer;
    try {
      answer = http.send("POST", REVIEWS, Map.of(), review, null);
    } catch (Exception noAnswer) {
      return false;
    }
    if (!answer.ok()) {
      return false;
    }
    @Nullable Map<String, Object> status =
        answer.body() == null ? null : ObjectFields.asObject(answer.body().get("status"));
    return status != null && Boolean.FALSE.equals(status.get("allowed"));
  }

  @Override
  public WatchStream watch(String resourceVersion, long timeoutSeconds) {
    return collection.watch(resourceVersion, timeoutSeconds);
  }
}
