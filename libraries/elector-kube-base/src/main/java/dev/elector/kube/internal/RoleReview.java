package dev.elector.kube.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Which of the permissions a lock needs its identity lacks, from one SelfSubjectRulesReview (which
 * every authenticated identity may create): so that the first refused request names every missing
 * verb at once, and one change of the Role is enough, not one per verb and restart.
 *
 * <p>A lock needs, in its namespace, {@code get}, {@code list}, {@code watch} and {@code patch} on
 * its object by name, and {@code create} on the resource (which cannot be restricted by name).
 */
final class RoleReview {
  static final String RULES_REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";

  /** The verbs a lock needs on its object, by name. */
  static final List<String> NAMED_VERBS = List.of("get", "list", "watch", "patch");

  /**
   * What the review found missing.
   *
   * @param named the verbs of {@link #NAMED_VERBS} not allowed on the object
   * @param create whether {@code create} on the resource is not allowed
   * @param incomplete whether the server said its rule list may be incomplete (an authorizer other
   *     than RBAC), so that more may be allowed than it shows
   */
  record Missing(List<String> named, boolean create, boolean incomplete) {
    boolean none() {
      return named.isEmpty() && !create;
    }
  }

  private RoleReview() {}

  /**
   * Asks the server; null when the review cannot be had (refused, an older server, no answer in
   * {@code timeout}), in which case the caller says what the lock needs without the review.
   */
  static @Nullable Missing ask(
      ApiTransport http,
      String namespace,
      String group,
      String resource,
      String name,
      Duration timeout,
      Abort abort) {
    Map<String, Object> review =
        Map.of(
            "apiVersion", "authorization.k8s.io/v1",
            "kind", "SelfSubjectRulesReview",
            "spec", Map.of("namespace", namespace));
    Reply answer;
    try {
      answer = http.send("POST", RULES_REVIEWS, Map.of(), review, null, timeout, abort);
    } catch (Exception noAnswer) {
      return null;
    }
    if (!answer.ok() || answer.body() == null) {
      return null;
    }
    @Nullable Map<String, Object> status = ObjectFields.asObject(answer.body().get("status"));
    return status == null ? null : missing(status, group, resource, name);
  }

  /** What {@code status} (a SelfSubjectRulesReview's) leaves missing for the lock {@code name}. */
  static Missing missing(Map<String, Object> status, String group, String resource, String name) {
    List<Map<String, Object>> rules = new ArrayList<>();
    if (status.get("resourceRules") instanceof List<?> list) {
      for (Object rule : list) {
        Map<String, Object> object = ObjectFields.asObject(rule);
        if (object != null) {
          rules.add(object);
        }
      }
    }
    List<String> named = new ArrayList<>();
    for (String verb : NAMED_VERBS) {
      if (rules.stream().noneMatch(r -> allows(r, verb, group, resource, name))) {
        named.add(verb);
      }
    }
    boolean create = rules.stream().noneMatch(r -> allows(r, "create", group, resource, null));
    return new Missing(List.copyOf(named), create, Boolean.TRUE.equals(status.get("incomplete")));
  }

  /**
   * Whether {@code rule} allows {@code verb} on {@code name} ({@code null}: on the resource as a
   * whole, as create needs).
   */
  private static boolean allows(
      Map<String, Object> rule, String verb, String group, String resource, @Nullable String name) {
    if (!names(rule, "verbs", verb)
        || !names(rule, "apiGroups", group)
        || !names(rule, "resources", resource)) {
      return false;
    }
    List<String> resourceNames = strings(rule.get("resourceNames"));
    return resourceNames.isEmpty() || (name != null && resourceNames.contains(name));
  }

  private static boolean names(Map<String, Object> rule, String field, String value) {
    List<String> values = strings(rule.get(field));
    return values.contains(value) || values.contains("*");
  }

  private static List<String> strings(@Nullable Object value) {
    List<String> out = new ArrayList<>();
    if (value instanceof List<?> list) {
      for (Object item : list) {
        if (item instanceof String s) {
          out.add(s);
        }
      }
    }
    return out;
  }
}
