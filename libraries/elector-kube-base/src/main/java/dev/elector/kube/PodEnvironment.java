package dev.elector.kube;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Where a Kubernetes lock (client-java and fabric8 alike) learns its namespace and default
 * identity: environment variables, the service account's namespace file and the host name. {@link
 * #system()} reads the real ones; {@link #of} supplies fixed values, for tests; every lock builder
 * takes one in {@code environment(...)}.
 *
 * <p>Namespace: {@code POD_NAMESPACE} (set it from the Downward API, {@code fieldRef:
 * metadata.namespace}), else the file {@value #NAMESPACE_FILE} that Kubernetes mounts with a
 * service account token. There is no fallback to {@code default} or {@code kube-system}.
 *
 * <p>Default identity: {@code POD_NAME} (Downward API, {@code metadata.name}), else the host name,
 * followed by {@code _} and a random suffix drawn once per process, so a restarted pod never
 * mistakes its predecessor's lease for its own. Two candidates for the same lock inside one process
 * need explicit identities.
 */
public final class PodEnvironment {
  /** The namespace file of a pod's service account. */
  public static final String NAMESPACE_FILE =
      "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

  private static final String PROCESS_SUFFIX = randomSuffix();
  private static final PodEnvironment SYSTEM =
      new PodEnvironment(
          System::getenv, PodEnvironment::readFile, PodEnvironment::hostName, PROCESS_SUFFIX);

  private final Function<String, @Nullable String> env;
  private final Function<Path, @Nullable String> files;
  private final Supplier<@Nullable String> hostName;
  private final String suffix;

  private PodEnvironment(
      Function<String, @Nullable String> env,
      Function<Path, @Nullable String> files,
      Supplier<@Nullable String> hostName,
      String suffix) {
    this.env = env;
    this.files = files;
    this.hostName = hostName;
    this.suffix = suffix;
  }

  /** The process's real environment, files and host name. */
  public static PodEnvironment system() {
    return SYSTEM;
  }

  /**
   * A fixed environment for tests: {@code env} holds the variables, {@code files} the content of
   * files by path, {@code hostName} the host name and {@code suffix} the identity suffix.
   */
  public static PodEnvironment of(
      Map<String, String> env, Map<String, String> files, String hostName, String suffix) {
    Map<String, String> envCopy = Map.copyOf(env);
    Map<String, String> filesCopy = Map.copyOf(files);
    Objects.requireNonNull(hostName, "hostName");
    Objects.requireNonNull(suffix, "suffix");
    return new PodEnvironment(
        envCopy::get, path -> filesCopy.get(path.toString()), () -> hostName, suffix);
  }

  /** The namespace of the pod this process runs in, if it can be told. */
  public Optional<String> namespace() {
    Optional<String> fromEnv = nonBlank(env.apply("POD_NAMESPACE"));
    if (fromEnv.isPresent()) {
      return fromEnv;
    }
    return nonBlank(files.apply(Path.of(NAMESPACE_FILE)));
  }

  /** The identity used when none is given: pod name or host name, {@code _}, random suffix. */
  public String defaultIdentity() {
    String base =
        nonBlank(env.apply("POD_NAME")).or(() -> nonBlank(hostName.get())).orElse("elector");
    return base + "_" + suffix;
  }

  private static Optional<String> nonBlank(@Nullable String value) {
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  private static @Nullable String readFile(Path path) {
    try {
      return Files.isReadable(path) ? Files.readString(path, StandardCharsets.UTF_8) : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static @Nullable String hostName() {
    String fromEnv = System.getenv("HOSTNAME");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return null;
    }
  }

  private static String randomSuffix() {
    String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    SecureRandom random = new SecureRandom();
    StringBuilder s = new StringBuilder(6);
    for (int i = 0; i < 6; i++) {
      s.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return s.toString();
  }
}
