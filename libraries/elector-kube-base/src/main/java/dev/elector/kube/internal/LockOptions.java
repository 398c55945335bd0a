package dev.elector.kube.internal;

import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The checks and defaults every Kubernetes lock builder applies, with the same messages whichever
 * client the lock uses: a valid object name, the namespace given or the pod's own (no fallback to
 * {@code default}), a non-blank identity (default the pod's), a positive request timeout.
 */
public final class LockOptions {
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private static final Pattern QUALIFIED_NAME =
      Pattern.compile(
          "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

  private LockOptions() {}

  /** {@code requestTimeout}, or the default when it is not set. */
  public static Duration requestTimeoutOrDefault(@Nullable Duration requestTimeout) {
    return requestTimeout != null ? requestTimeout : KubeLock.DEFAULT_REQUEST_TIMEOUT;
  }

  /** What is wrong with the Events options: an eventComponent without events, or a bad name. */
  public static List<String> eventProblems(boolean recordEvents, @Nullable String eventComponent) {
    List<String> problems = new ArrayList<>();
    if (eventComponent != null && !recordEvents) {
      problems.add(
          "eventComponent \""
              + eventComponent
              + "\" is set but events are not"
              + " recorded; add recordEvents(true), or drop eventComponent");
    } else if (eventComponent != null && !QUALIFIED_NAME.matcher(eventComponent).matches()) {
      problems.add(
          "eventComponent \""
              + eventComponent
              + "\" is not a Kubernetes qualified"
              + " name; use letters, digits, '-', '_' and '.' (at most 63), for example"
              + " \"my-operator\"");
    }
    return problems;
  }

  /** The component events are recorded as, or null when none are recorded. */
  public static @Nullable String eventComponent(
      boolean recordEvents, @Nullable String eventComponent) {
    return !recordEvents
        ? null
        : eventComponent != null ? eventComponent : KubeLock.DEFAULT_EVENT_COMPONENT;
  }

  /**
   * Options after defaults and checks.
   *
   * @param requestTimeout the requestTimeout set, or null for none
   */
  public record Resolved(
      String namespace, String name, String identity, @Nullable Duration requestTimeout) {}

  /**
   * Applies the defaults and checks everything at once.
   *
   * @param kind the lock's kind, such as {@code Lease}, for messages
   * @param namespace the namespace given, or null for the pod's own
   * @param identity the identity given, or null for the environment's default
   * @param requestTimeout the requestTimeout given, or null for none
   * @param more problems the backend found with its own options, reported with these
   * @throws IllegalStateException listing every problem
   */
  public static Resolved resolve(
      String kind,
      @Nullable String name,
      @Nullable String namespace,
      @Nullable String identity,
      @Nullable Duration requestTimeout,
      PodEnvironment environment,
      List<String> more) {
    List<String> problems = new ArrayList<>();
    if (name == null || name.isBlank()) {
      problems.add("name is missing; set name(...) to the " + kind + " all candidates share");
    } else if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
      problems.add(
          "name \""
              + name
              + "\" is not a valid Kubernetes object name; use lower case"
              + " letters, digits, '-' and '.', at most 253 characters");
    }
    String ns = namespace != null ? namespace.trim() : environment.namespace().orElse(null);
    if (ns == null || ns.isEmpty()) {
      problems.add(
          "no namespace for the "
              + kind
              + ": set namespace(...), or set the environment"
              + " variable POD_NAMESPACE from the Downward API (fieldRef: metadata.namespace), or run"
              + " in a pod with a service account mounted ("
              + PodEnvironment.NAMESPACE_FILE
              + ")");
    } else if (ns.length() > 63 || !DNS_LABEL.matcher(ns).matches()) {
      problems.add("namespace \"" + ns + "\" is not a valid namespace name");
    }
    String id = identity != null ? identity : environment.defaultIdentity();
    if (id.isBlank()) {
      problems.add("identity is blank; give every candidate a unique identity");
    }
    if (requestTimeout != null && (requestTimeout.isZero() || requestTimeout.isNegative())) {
      problems.add(
          "requestTimeout "
              + requestTimeout
              + " must be positive; leave it unset to follow the elector's callTimeout");
    }
    problems.addAll(more);
    if (!problems.isEmpty() || ns == null || name == null) { // a null is among the problems
      throw new IllegalStateException(
          "cannot build the " + kind + " lock: " + String.join("; ", problems));
    }
    return new Resolved(ns, name, id, requestTimeout);
  }
}
