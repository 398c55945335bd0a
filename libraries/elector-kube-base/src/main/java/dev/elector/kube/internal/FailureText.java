package dev.elector.kube.internal;

import dev.elector.lock.LockFailure;
import dev.elector.lock.LockFailure.Kind;
import java.io.InterruptedIOException;
import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Turns API answers and transport errors into failures that say what to do, about one lock object
 * or, with a null name, about the whole collection in the namespace (a shared watch). A 403 names
 * the Role rule to add, in the shape of the shipped {@code deploy/.../rbac.yaml}.
 */
public final class FailureText {
  private final String kind;
  private final String group;
  private final String resource;
  private final String namespace;
  private final @Nullable String name;
  private final String identity;

  /**
   * @param kind the object's kind, such as {@code Lease}
   * @param group the API group, empty for the core group
   * @param resource the plural resource name
   * @param name the object's name, or null for the whole collection
   * @param identity who asks, as messages name it
   */
  public FailureText(
      String kind,
      String group,
      String resource,
      String namespace,
      @Nullable String name,
      String identity) {
    this.kind = kind;
    this.group = group;
    this.resource = resource;
    this.namespace = namespace;
    this.name = name;
    this.identity = identity;
  }

  /** The same, about the whole collection in the namespace. */
  public FailureText forCollection() {
    return new FailureText(kind, group, resource, namespace, null, identity);
  }

  /** The API group of the lock's resource, empty for the core group. */
  public String group() {
    return group;
  }

  /** The lock's resource, such as {@code leases}. */
  public String resource() {
    return resource;
  }

  /**
   * The resource as RBAC and error messages spell it, such as {@code leases.coordination.k8s.io}.
   */
  public String qualifiedResource() {
    return group.isEmpty() ? resource : resource + "." + group;
  }

  /** The Role rule that allows {@code verb} on this lock. */
  public String ruleFor(String verb) {
    // create cannot be restricted by name: the name is not known when it is authorised
    return rule(List.of(verb), !verb.equals("create") && name != null);
  }

  private String rule(List<String> verbs, boolean byName) {
    String rule =
        "apiGroups: [\""
            + group
            + "\"], resources: [\""
            + resource
            + "\"], verbs: [\""
            + String.join("\", \"", verbs)
            + "\"]";
    return byName ? rule + ", resourceNames: [\"" + name + "\"]" : rule;
  }

  /** Elector's shipped Role for this kind of lock, as its repository names it. */
  String shippedRole() {
    return "deploy/" + (resource.equals("configmaps") ? "configmap" : "lease") + "/rbac.yaml";
  }

  /** What a request is about: one object, or the whole collection in the namespace. */
  private String subject(String verb) {
    return name == null
        ? verb + " " + qualifiedResource() + " in namespace " + namespace
        : verb + " " + qualifiedResource() + " \"" + name + "\" in namespace " + namespace;
  }

  /**
   * The failure an HTTP answer stands for.
   *
   * @param server the message of the server's Status, or its raw text
   */
  public LockFailure fromStatus(String verb, int code, String server) {
    String what = subject(verb);
    switch (code) {
      case 401:
        return LockFailure.of(
            Kind.UNAUTHORIZED,
            "the API server did not accept the credentials"
                + " of "
                + identity
                + " to "
                + what
                + " (401: "
                + server
                + "); check the service"
                + " account token or kubeconfig, it may be missing or expired");
      case 403:
        return forbidden(verb, server, null);
      case 404:
        if (verb.equals("create")) {
          return LockFailure.of(
              Kind.NOT_FOUND,
              "cannot create "
                  + kind
                  + " "
                  + namespace
                  + "/"
                  + name
                  + ": namespace "
                  + namespace
                  + " does not exist (404: "
                  + server
                  + "); create the namespace, or point the lock at an existing one");
        }
        return LockFailure.of(Kind.NOT_FOUND, "could not " + what + " (404: " + server + ")");
      case 400:
      case 422:
        return LockFailure.of(
            Kind.INVALID,
            "the API server rejected the request to "
                + what
                + " as invalid ("
                + code
                + ": "
                + server
                + ")");
      case 429:
        return LockFailure.of(
            Kind.UNAVAILABLE,
            "the API server is overloaded and refused to " + what + " (429: " + server + ")");
      case 408:
      case 504:
        return LockFailure.of(
            Kind.TIMEOUT,
            "the API server timed out trying to " + what + " (" + code + ": " + server + ")");
      default:
        if (code >= 500) {
          return LockFailure.of(
              Kind.UNAVAILABLE,
              "the API server failed to " + what + " (" + code + ": " + server + ")");
        }
        return LockFailure.of(
            Kind.UNEXPECTED, "unexpected answer to " + what + " (" + code + ": " + server + ")");
    }
  }

  /**
   * A refusal (403) of {@code verb}. With {@code missing} from a rules review, it names every
   * permission of the lock that is missing, so that one change of the Role is enough; without, it
   * names the rule for {@code verb} and everything else the lock needs.
   */
  LockFailure forbidden(String verb, String server, RoleReview.@Nullable Missing missing) {
    String refused = identity + " is not allowed to " + subject(verb) + " (403: " + server + "); ";
    String grant;
    if (name == null) {
      grant =
          "grant it with a Role in namespace "
              + namespace
              + ", bound to this pod's service account, with the rule {"
              + ruleFor("list\", \"watch")
              + "}, which the shared watch needs;"
              + " or build the locks with watchMode(PER_LOCK) to watch each object by name";
    } else if (missing != null && !missing.none()) {
      List<String> lacks = new ArrayList<>(missing.named());
      if (missing.create()) {
        lacks.add("create");
      }
      List<String> rules = new ArrayList<>();
      if (!missing.named().isEmpty()) {
        rules.add("{" + rule(missing.named(), true) + "}");
      }
      if (missing.create()) {
        rules.add("{" + ruleFor("create") + "}");
      }
      grant =
          "of what the lock needs in namespace "
              + namespace
              + ", "
              + identity
              + " lacks "
              + String.join(", ", lacks)
              + (missing.incomplete()
                  ? " (as far as the API server's rules review shows; it says its list may be"
                      + " incomplete)"
                  : " (a SelfSubjectRulesReview says so)")
              + ": grant them all at once with a Role in namespace "
              + namespace
              + ", bound to this pod's service account, with the rule"
              + (rules.size() == 1 ? " " : "s ")
              + String.join(" and ", rules)
              + " ("
              + shippedRole()
              + " of Elector's repository is that Role)";
    } else {
      grant =
          "grant it with a Role in namespace "
              + namespace
              + ", bound to this pod's service account, with the rule {"
              + ruleFor(verb)
              + "}; the lock needs get, list, watch and patch on \""
              + name
              + "\" and create on "
              + qualifiedResource()
              + ", all granted by "
              + shippedRole()
              + " of Elector's repository";
    }
    String authorizerNotReady =
        server != null && server.contains("RBAC: ") && server.contains(" not found")
            ? "; a role that the bindings name is missing, or the API server has just"
                + " started and its authorizer has not loaded the roles yet, which passes"
                + " within seconds"
            : "";
    return LockFailure.of(Kind.FORBIDDEN, refused + grant + authorizerNotReady);
  }

  /**
   * The failure of a request that got no answer: a timeout when {@code e} is one (an {@link
   * InterruptedIOException}, {@link HttpTimeoutException} or {@link TimeoutException}), else the
   * server was unreachable.
   */
  public LockFailure fromTransport(String verb, Throwable e, long timeoutMillis) {
    String what = subject(verb);
    if (e instanceof InterruptedIOException
        || e instanceof HttpTimeoutException
        || e instanceof TimeoutException) {
      return new LockFailure(
          Kind.TIMEOUT, "no answer within " + timeoutMillis + " ms to " + what + " (" + e + ")", e);
    }
    return new LockFailure(
        Kind.UNAVAILABLE, "could not reach the API server to " + what + " (" + e + ")", e);
  }
}
