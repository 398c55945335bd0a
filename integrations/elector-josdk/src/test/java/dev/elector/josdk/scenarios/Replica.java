package dev.elector.josdk.scenarios;

import dev.elector.testenv.net.FaultProxy;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One operator replica as a separate process ({@link ReplicaMain} on the test class path),
 * connected to the API server through a {@link FaultProxy} of its own, with its event lines
 * collected as they come.
 */
final class Replica implements AutoCloseable {
  /** One {@code EVENT} line of the replica. */
  record Event(long nanos, String kind, Map<String, String> fields) {
    long nanosField(String name) {
      return Long.parseLong(fields.get(name));
    }
  }

  final String name;
  final FaultProxy proxy;
  final Process process;
  private final List<Event> events = new CopyOnWriteArrayList<>();
  private volatile long endedNanos = Long.MAX_VALUE;

  private final Path eventsFile;

  private Replica(String name, FaultProxy proxy, Process process, Path eventsFile) {
    this.eventsFile = eventsFile;
    this.name = name;
    this.proxy = proxy;
    this.process = process;
  }

  /**
   * Starts a replica named {@code name} with the admin or pod kubeconfig {@code kubeconfigYaml},
   * whose server is replaced by a fault proxy in front of it.
   */
  static Replica start(
      String name, String server, String kubeconfigYaml, Path dir, List<String> flags)
      throws Exception {
    URI uri = URI.create(server);
    FaultProxy proxy =
        FaultProxy.newBuilder()
            .name(name)
            .target(new InetSocketAddress(uri.getHost(), uri.getPort()))
            .start();
    Path kubeconfig = dir.resolve(name + ".kubeconfig");
    Files.writeString(
        kubeconfig,
        kubeconfigYaml.replace(server, "https://" + proxy.hostPort()),
        StandardCharsets.UTF_8);
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx160m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.logFile=System.err",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                ReplicaMain.class.getName(),
                "--kubeconfig",
                kubeconfig.toString(),
                "--identity",
                name));
    command.addAll(flags);
    Process process =
        new ProcessBuilder(command).redirectError(dir.resolve(name + ".log").toFile()).start();
    Path eventsFile = dir.resolve(name + ".events");
    process.getOutputStream().close();
    Replica replica = new Replica(name, proxy, process, eventsFile);
    Thread reader = new Thread(replica::read, name + "-stdout");
    reader.setDaemon(true);
    reader.start();
    return replica;
  }

  /** A fresh folder under target/ for the replicas' kubeconfigs, logs and events. */
  static Path workDir(String scenario) throws java.io.IOException {
    Path dir = Path.of("target", "josdk-replicas", scenario + "-" + System.currentTimeMillis());
    Files.createDirectories(dir);
    return dir;
  }

  private void read() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        if (!line.startsWith("EVENT ")) {
          continue;
        }
        Files.writeString(
            eventsFile,
            line + "\n",
            StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.APPEND);
        String[] words = line.split(" ", -1);
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 3; i < words.length; i++) {
          int eq = words[i].indexOf('=');
          fields.put(words[i].substring(0, eq), words[i].substring(eq + 1));
        }
        events.add(new Event(Long.parseLong(words[1]), words[2], fields));
      }
    } catch (Exception e) {
      // the process ended; what it printed is kept
    } finally {
      endedNanos = Math.min(endedNanos, System.nanoTime());
    }
  }

  List<Event> events() {
    return List.copyOf(events);
  }

  List<Event> events(String kind) {
    return events.stream().filter(e -> e.kind().equals(kind)).toList();
  }

  boolean has(String kind) {
    return events.stream().anyMatch(e -> e.kind().equals(kind));
  }

  /** Whether the replica currently leads, by its own events. */
  boolean leading() {
    return Leadership.of(this).stream().anyMatch(i -> i.end() == Long.MAX_VALUE);
  }

  /** When the process was seen to end (its output closed), or Long.MAX_VALUE while it runs. */
  long endedNanos() {
    return process.isAlive() ? Long.MAX_VALUE : endedNanos;
  }

  /** SIGTERM, as Kubernetes stops a pod; the output stays readable (Process.destroy closes it). */
  void terminate() throws Exception {
    new ProcessBuilder("kill", "-TERM", Long.toString(process.pid()))
        .start()
        .waitFor(10, TimeUnit.SECONDS);
  }

  /** Whether the replica printed that it wrote the ConfigMap of {@code greeting}. */
  boolean reconciled(String greeting) {
    return events("RECONCILED").stream().anyMatch(e -> greeting.equals(e.fields().get("object")));
  }

  /** SIGKILL: nothing released, nothing stopped. */
  long kill() throws InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    long at = System.nanoTime();
    endedNanos = Math.min(endedNanos, at);
    return at;
  }

  @Override
  public void close() {
    try {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      proxy.close();
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
