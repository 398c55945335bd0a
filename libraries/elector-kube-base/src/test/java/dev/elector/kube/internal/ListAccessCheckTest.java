package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Before a shared watch's first list, the identity's right to list is asked of the API server: a
 * "no" becomes a 403 answer without a refused request; anything else lets the list go out.
 */
class ListAccessCheckTest {
  private final List<String> sent = new ArrayList<>();

  /** Answers a review with {@code review}, or throws it when it is an exception. */
  private final class Server implements ApiTransport {
    private final Object review;

    Server(Object review) {
      this.review = review;
    }

    @Override
    public Reply send(
        String method,
        String path,
        Map<String, String> query,
        @Nullable Object body,
        @Nullable String contentType,
        Duration timeout,
        Abort abort)
        throws Exception {
      sent.add(method + " " + path + (body == null ? "" : " " + spec(body)));
      if (method.equals("GET")) {
        return new Reply(200, Map.of("items", List.of()), null, Duration.ZERO);
      }
      if (review instanceof Exception e) {
        throw e;
      }
      return (Reply) review;
    }

    @Override
    public WatchStream stream(String path, Map<String, String> query, Duration total) {
      throw new AssertionError("no watch in these tests");
    }

    @Override
    public Duration timeout() {
      return Duration.ofMinutes(1);
    }

    @Override
    public @Nullable Object parseJson(String text) {
      throw new AssertionError("no parsing in these tests");
    }

    @Override
    public String writeJson(@Nullable Object value) {
      throw new AssertionError("no JSON to write here");
    }
  }

  private static Object spec(Object body) {
    return ObjectFields.asObject(ObjectFields.asObject(body).get("spec")).get("resourceAttributes");
  }

  private static Reply reviewed(boolean allowed) {
    return new Reply(201, Map.of("status", Map.of("allowed", allowed)), null, Duration.ZERO);
  }

  private List<String> methods() {
    return sent.stream().map(s -> s.substring(0, s.indexOf(' '))).toList();
  }

  private ListAccessCheck check(ApiTransport server, boolean wanted) {
    ListWatchLoop.Transport collection =
        new CollectionTransport(server, "/apis/coordination.k8s.io/v1/namespaces/ns/leases", null);
    return new ListAccessCheck(
        collection, server, "ns", "coordination.k8s.io", "leases", () -> wanted);
  }

  @Test
  void aRefusalComesBackAsA403WithoutSendingTheList() throws Exception {
    Reply reply = check(new Server(reviewed(false)), true).list();

    assertEquals(403, reply.code());
    assertEquals(
        List.of(
            "POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews {namespace=ns, verb=list,"
                + " group=coordination.k8s.io, resource=leases}"),
        sent);
  }

  @Test
  void anAllowedIdentityListsAfterOneReviewAndIsNotAskedAgain() throws Exception {
    Server server = new Server(reviewed(true));
    ListAccessCheck check = check(server, true);

    check.list();
    check.list();

    assertEquals(3, sent.size(), sent.toString());
    assertEquals(List.of("POST", "GET", "GET"), methods());
  }

  @Test
  void aReviewThatCannotBeHadLetsTheListGoOut() throws Exception {
    for (Object review :
        List.of(
            new Reply(403, Map.of(), null, Duration.ZERO),
            new Reply(404, null, "not found", Duration.ZERO),
            new IOException("connection reset"),
            new Reply(201, Map.of("status", Map.of()), null, Duration.ZERO))) {
      sent.clear();
      check(new Server(review), true).list();
      assertEquals(List.of("POST", "GET"), methods(), "" + review);
    }
  }

  @Test
  void nothingIsAskedWhenTheAnswerCannotMatter() throws Exception {
    check(new Server(reviewed(false)), false).list();

    assertEquals(List.of("GET /apis/coordination.k8s.io/v1/namespaces/ns/leases"), sent);
  }
}
