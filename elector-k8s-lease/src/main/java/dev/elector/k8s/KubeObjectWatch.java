package dev.elector.k8s;

import com.google.gson.JsonObject;
import dev.elector.kube.internal.CollectionTransport;
import dev.elector.kube.internal.FailureText;
import dev.elector.kube.internal.ListWatchLoop;
import dev.elector.lock.LockFailure;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Lists, then watches, exactly one named object of any namespaced resource, on a daemon thread of
 * its own: the loop the locks use, for the state a leader needs before it acts (a readiness gate
 * fed from one object). After every (re)list the listener gets the object's whole state, so it is
 * right after the first list whatever events follow; then every change. A failure is reported and
 * the watch reconnects after a back-off of 0.5 s doubling to 30 s with jitter; the end of a
 * server-side timeout resumes from the last resourceVersion; 410 Gone lists again. Whatever the
 * server does, it sends at most 4 + T / 1 s list and watch requests in any interval T; a watch that
 * ends at once without an event, or a 410 right after a list, is reported as a failure and backed
 * off like one. Only {@code list} and {@code watch} on that one name are needed (the requests carry
 * the field selector {@code metadata.name}).
 *
 * <pre>{@code
 * KubeObjectWatch watch = KubeObjectWatch.newBuilder()
 *     .apiClient(client).group("network.harvesterhci.io").version("v1alpha1")
 *     .resource("ippools").namespace("default").name("net-48")
 *     .listener(new KubeObjectWatch.Listener() { ... })
 *     .build();
 * watch.start();
 * }</pre>
 *
 * <p>Raw JSON keeps fields this library does not know; deserialise with the client's own {@code
 * JSON} if a typed model is wanted. Thread-safe.
 */
public final class KubeObjectWatch implements AutoCloseable {
  private static final Pattern PLURAL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  /** What the watch reports, on its own thread, one call at a time; calls must not block long. */
  public interface Listener {
    /**
     * The object's state after a (re)list or a change.
     *
     * @param object the object as the API server sent it, or empty when it does not exist
     */
    void state(Optional<JsonObject> object);

    /**
     * A list or watch failed; the watch reconnects by itself.
     *
     * @param failure what went wrong; a 403 names the Role rule to add
     * @param firstInARow whether this is the first failure since the start or since a watch stayed
     *     open for 30 s, so that a listener can log once per streak
     */
    void failed(Failure failure, boolean firstInARow);
  }

  /**
   * Why a list or watch of the object failed.
   *
   * @param kind the class of failure, the same classes as a failed lock call's (a 403 is {@code
   *     FORBIDDEN}, a configuration problem; a 503 is {@code UNAVAILABLE}, transient)
   * @param message what went wrong; a 403 names the Role rule to add
   * @param cause the underlying exception, or null
   */
  public record Failure(LockFailure.Kind kind, String message, @Nullable Throwable cause) {
    /** Checks that the kind and the message are given. */
    public Failure {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(message, "message");
    }

    /** The same failure as the list-watch loop reports it for a lock. */
    static Failure of(LockFailure failure) {
      return new Failure(failure.kind(), failure.message(), failure.cause());
    }

    @Override
    public String toString() {
      return kind + ": " + message;
    }
  }

  private final Loop loop;
  private final String description;
  private boolean started;

  private KubeObjectWatch(Builder b) {
    List<String> problems = new ArrayList<>();
    if (b.apiClient == null) {
      problems.add("apiClient is missing");
    }
    if (b.version == null || b.version.isBlank()) {
      problems.add("version is missing, such as v1");
    }
    if (b.resource == null || !PLURAL.matcher(b.resource).matches()) {
      problems.add(
          "resource \"" + b.resource + "\" is not a plural resource name, such as" + " leases");
    }
    if (b.namespace == null || b.namespace.isBlank()) {
      problems.add("namespace is missing");
    }
    if (b.name == null || b.name.isBlank()) {
      problems.add("name is missing");
    }
    if (b.listener == null) {
      problems.add("listener is missing");
    }
    if (b.requestTimeout.isZero() || b.requestTimeout.isNegative()) {
      problems.add("requestTimeout " + b.requestTimeout + " must be positive");
    }
    ApiClient apiClient = b.apiClient;
    String version = b.version;
    String resource = b.resource;
    String namespace = b.namespace;
    String name = b.name;
    Listener listener = b.listener;
    if (!problems.isEmpty()
        || apiClient == null // each null is among the problems
        || version == null
        || resource == null
        || namespace == null
        || name == null
        || listener == null) {
      throw new IllegalStateException("cannot build the watch: " + String.join("; ", problems));
    }
    String root = b.group.isEmpty() ? "/api/" + version : "/apis/" + b.group + "/" + version;
    String qualified = b.group.isEmpty() ? resource : resource + "." + b.group;
    this.description = qualified + " " + namespace + "/" + name;
    this.loop =
        new Loop(
            new CollectionTransport(
                new KubeHttp(apiClient, b.requestTimeout),
                root + "/namespaces/" + namespace + "/" + resource,
                name),
            new FailureText(resource, b.group, resource, namespace, name, b.identity),
            b.requestTimeout,
            listener,
            description);
  }

  /** Returns a builder; apiClient, version, resource, namespace, name and listener are required. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * Starts the watch thread.
   *
   * @throws IllegalStateException if started before
   */
  public synchronized void start() {
    if (started) {
      throw new IllegalStateException(description + ": already started");
    }
    started = true;
    loop.start("watch-" + description.replaceAll("[^A-Za-z0-9.-]", "-") + "-");
  }

  /**
   * Stops the watch and waits up to 5 s for its thread to end, so no report follows once this
   * returns (unless called from the listener itself). Idempotent.
   */
  @Override
  public void close() {
    loop.stop();
    loop.awaitStopped(Duration.ofSeconds(5));
  }

  @Override
  public String toString() {
    return "watch of " + description;
  }

  /** The shared loop, handing the object to the listener as a Gson tree. */
  private static final class Loop extends ListWatchLoop {
    private final Listener listener;
    private final String description;

    Loop(
        CollectionTransport transport,
        FailureText failures,
        Duration requestTimeout,
        Listener listener,
        String description) {
      super(transport, failures, requestTimeout);
      this.listener = listener;
      this.description = description;
    }

    @Override
    protected String describe() {
      return description;
    }

    @Override
    protected void listed(List<Map<String, Object>> objects) {
      listener.state(objects.stream().findFirst().map(Loop::tree));
    }

    @Override
    protected void changed(String type, Map<String, Object> object) {
      listener.state(type.equals("DELETED") ? Optional.empty() : Optional.of(tree(object)));
    }

    private static JsonObject tree(Map<String, Object> object) {
      return GsonValues.toTree(object).getAsJsonObject();
    }

    @Override
    protected void broke(LockFailure failure, boolean firstInARow) {
      listener.failed(Failure.of(failure), firstInARow);
    }
  }

  /** Builds a {@link KubeObjectWatch}; setters reject null at once, {@code build()} checks all. */
  public static final class Builder {
    private @Nullable ApiClient apiClient;
    private String group = "";
    private @Nullable String version;
    private @Nullable String resource;
    private @Nullable String namespace;
    private @Nullable String name;
    private @Nullable Listener listener;
    private String identity = "this client";
    private Duration requestTimeout = KubeLockBuilder.DEFAULT_REQUEST_TIMEOUT;

    private Builder() {}

    /** The client to talk to the API server with; its credentials are the watch's. */
    public Builder apiClient(ApiClient apiClient) {
      this.apiClient = Objects.requireNonNull(apiClient, "apiClient");
      return this;
    }

    /** The API group; default the core group (empty). */
    public Builder group(String group) {
      this.group = Objects.requireNonNull(group, "group");
      return this;
    }

    /** The group version, such as {@code v1}. */
    public Builder version(String version) {
      this.version = Objects.requireNonNull(version, "version");
      return this;
    }

    /** The plural resource name, such as {@code leases}. */
    public Builder resource(String resource) {
      this.resource = Objects.requireNonNull(resource, "resource");
      return this;
    }

    /** The object's namespace. */
    public Builder namespace(String namespace) {
      this.namespace = Objects.requireNonNull(namespace, "namespace");
      return this;
    }

    /** The object's name. */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Whom to tell. */
    public Builder listener(Listener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Who watches, as failure messages name it; default "this client". */
    public Builder identity(String identity) {
      this.identity = Objects.requireNonNull(identity, "identity");
      return this;
    }

    /** Timeout of each list; default {@link KubeLockBuilder#DEFAULT_REQUEST_TIMEOUT}. */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
      return this;
    }

    /**
     * Builds the watch; call {@link KubeObjectWatch#start()}.
     *
     * @throws IllegalStateException listing every missing or invalid option
     */
    public KubeObjectWatch build() {
      return new KubeObjectWatch(this);
    }
  }
}
