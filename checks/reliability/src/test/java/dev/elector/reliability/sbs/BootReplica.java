package dev.elector.reliability.sbs;

import dev.elector.testenv.net.FaultProxy;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
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
 * One replica of the side-by-side Spring Boot application as a process of its own (the class path
 * its pom's build left in target/classes and target/lib), with {@code HOSTNAME} set to its Pod's
 * name and a kubeconfig whose server is a {@link FaultProxy} of its own. Its {@code EVENT} lines
 * are collected as they come; all its output goes to {@code <name>.log}.
 */
final class BootReplica implements AutoCloseable {
  /** One {@code EVENT} line. */
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

  private BootReplica(String name, FaultProxy proxy, Process process) {
    this.name = name;
    this.proxy = proxy;
    this.process = process;
  }

  static BootReplica start(
      String name, Path app, String server, String kubeconfigYaml, Path dir, List<String> args)
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
                "-XX:+UseSerialGC",
                "-cp",
                app.resolve("target/classes").toAbsolutePath()
                    + java.io.File.pathSeparator
                    + app.resolve("target/lib").toAbsolutePath()
                    + "/*",
                "dev.elector.sbs.SideBySideApp"));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("HOSTNAME", name);
    builder.environment().put("POD_NAME", name);
    builder.environment().put("KUBECONFIG", kubeconfig.toAbsolutePath().toString());
    Process process = builder.start();
    process.getOutputStream().close();
    BootReplica replica = new BootReplica(name, proxy, process);
    Path log = dir.resolve(name + ".log");
    Thread reader = new Thread(() -> replica.read(log), name + "-stdout");
    reader.setDaemon(true);
    reader.start();
    return replica;
  }

  private void read(Path log) {
    try (BufferedReader in =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        out.println(line);
        out.flush();
        if (!line.startsWith("EVENT ")) {
          continue;
        }
        String[] words = line.split(" ", -1);
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 3; i < words.length; i++) {
          int eq = words[i].indexOf('=');
          if (eq > 0) {
            fields.put(words[i].substring(0, eq), words[i].substring(eq + 1));
          }
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

  /** The first event of {@code kind} at or after {@code since}, or null. */
  Event first(String kind, long since) {
    return events.stream()
        .filter(e -> e.kind().equals(kind) && e.nanos() >= since)
        .findFirst()
        .orElse(null);
  }

  /** Whether the replica leads now, by its own events, and runs. */
  boolean leading() {
    return process.isAlive()
        && LeaderTimeline.of(this).stream().anyMatch(i -> i.end() == Long.MAX_VALUE);
  }

  long endedNanos() {
    return process.isAlive() ? Long.MAX_VALUE : endedNanos;
  }

  /** SIGTERM, as the kubelet stops a container; returns when it was sent. */
  long terminate() throws Exception {
    long at = System.nanoTime();
    new ProcessBuilder("kill", "-TERM", Long.toString(process.pid()))
        .start()
        .waitFor(10, TimeUnit.SECONDS);
    return at;
  }

  /** SIGKILL: nothing released, nothing stopped; returns when the process was gone. */
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
