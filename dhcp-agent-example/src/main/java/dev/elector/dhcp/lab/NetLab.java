package dev.elector.dhcp.lab;

import dev.elector.dhcp.codec.MacAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A local network lab of Linux network namespaces, for running DHCP agents and a real DHCP client
 * without a cluster: one L2 segment (a bridge in a namespace of its own, as a Multus network would
 * be) and hosts attached to it, each a namespace with one interface on the segment. It touches
 * nothing outside the namespaces and veth pairs it creates, and deletes them on {@link #close()}.
 *
 * <p>Hosts reach a TCP service of this machine's loopback (the API server) at the same address,
 * {@code 127.0.0.1:PORT}, so kubeconfigs and TLS names stay valid: {@code socat} listens on that
 * port inside the host and forwards through a Unix socket (Unix sockets are not per namespace) to a
 * second {@code socat} on the real loopback.
 *
 * <p>Needs root, iproute2 and socat ({@code dhcp-agent-example/scripts/install-dhcp-client.sh}
 * installs them). {@link #unavailableReason()} tells beforehand what is missing.
 */
public final class NetLab implements AutoCloseable {
  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

  /** The outcome of a command run to completion. */
  public record Result(int exit, String output) {
    public boolean ok() {
      return exit == 0;
    }
  }

  private final String tag;
  private final String lan;
  private final Path dir;
  private final Map<String, Host> hosts = new LinkedHashMap<>();
  private final Map<Integer, Process> sharedPorts = new LinkedHashMap<>();
  private final List<Process> processes = new ArrayList<>();
  private int nextLink;
  private boolean closed;

  private NetLab(String tag, Path dir) {
    this.tag = tag;
    this.lan = "elx-" + tag + "-lan";
    this.dir = dir;
  }

  /**
   * Set to {@code true} to skip the lab tests explicitly; without it they fail on a bare machine.
   */
  public static final String SKIP_VARIABLE = "ELECTOR_SKIP_NETNS_TESTS";

  /** Whether {@value #SKIP_VARIABLE}=true asks to skip the lab tests. */
  public static boolean skipRequested() {
    return "true".equals(System.getenv(SKIP_VARIABLE));
  }

  /**
   * Installs the lab tools with the script named by {@code DHCP_CLIENT_INSTALL_SCRIPT}, else {@code
   * defaultScript} (a path relative to the working directory), and checks that a lab can be made.
   *
   * @return empty when a lab can be made, else why not and how to skip the lab tests explicitly
   */
  public static Optional<String> prepare(String defaultScript) {
    String script = System.getenv().getOrDefault("DHCP_CLIENT_INSTALL_SCRIPT", defaultScript);
    Result installed = run(300, "bash", script);
    if (!installed.ok()) {
      return Optional.of(
          "could not install the lab tools with " + script + ": " + installed.output());
    }
    return unavailableReason()
        .map(
            why ->
                "this test needs network namespaces: "
                    + why
                    + " - set "
                    + SKIP_VARIABLE
                    + "=true to skip it explicitly");
  }

  /** Why a lab cannot be made on this machine (not root, a tool missing), or empty if it can. */
  public static Optional<String> unavailableReason() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return Optional.of(
          "network namespaces need root (running as " + System.getProperty("user.name") + ")");
    }
    for (String tool : List.of("ip", "socat")) {
      if (!onPath(tool)) {
        return Optional.of(
            tool + " is not installed; run" + " dhcp-agent-example/scripts/install-dhcp-client.sh");
      }
    }
    return Optional.empty();
  }

  /**
   * Creates the segment.
   *
   * @throws IOException naming the command that failed
   */
  public static NetLab create() throws IOException {
    Optional<String> missing = unavailableReason();
    if (missing.isPresent()) {
      throw new IOException("cannot build the network lab: " + missing.get());
    }
    SecureRandom random = new SecureRandom();
    StringBuilder tag = new StringBuilder();
    for (int i = 0; i < 6; i++) {
      tag.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    NetLab lab = new NetLab(tag.toString(), Files.createTempDirectory("elector-netlab-"));
    Runtime.getRuntime().addShutdownHook(new Thread(lab::close, "netlab-cleanup"));
    try {
      lab.must("ip", "netns", "add", lab.lan);
      lab.must("ip", "-n", lab.lan, "link", "set", "lo", "up");
      lab.must("ip", "-n", lab.lan, "link", "add", "br0", "type", "bridge");
      lab.must("ip", "-n", lab.lan, "link", "set", "br0", "up");
    } catch (IOException | RuntimeException e) {
      lab.close();
      throw e;
    }
    return lab;
  }

  /**
   * Adds a host: a namespace {@code elx-TAG-NAME} whose interface {@code nic} is on the segment.
   *
   * @param mac the interface's MAC, or empty for a random one
   */
  public synchronized Host addHost(String name, String nic, Optional<MacAddress> mac)
      throws IOException {
    if (hosts.containsKey(name)) {
      throw new IllegalArgumentException("host " + name + " exists already");
    }
    String ns = "elx-" + tag + "-" + name;
    String peer = "elx" + tag + (nextLink++);
    must("ip", "netns", "add", ns);
    must("ip", "-n", ns, "link", "set", "lo", "up");
    must("ip", "link", "add", peer, "type", "veth", "peer", "name", nic, "netns", ns);
    must("ip", "link", "set", peer, "netns", lan);
    must("ip", "-n", lan, "link", "set", peer, "master", "br0", "up");
    if (mac.isPresent()) {
      must("ip", "-n", ns, "link", "set", nic, "address", mac.get().toString());
    }
    must("ip", "-n", ns, "link", "set", nic, "up");
    Host host = new Host(name, ns, nic);
    hosts.put(name, host);
    return host;
  }

  /**
   * Makes {@code 127.0.0.1:port} of this machine reachable from hosts that {@linkplain
   * Host#reachLoopback(int) ask for it}.
   */
  public synchronized void shareLoopback(int port) throws IOException {
    if (sharedPorts.containsKey(port)) {
      return;
    }
    Path socket = socket(port);
    Process relay =
        start(
            List.of(
                "socat", "UNIX-LISTEN:" + socket + ",fork,unlink-early", "TCP:127.0.0.1:" + port),
            dir.resolve("relay-" + port + ".log"));
    sharedPorts.put(port, relay);
    awaitPath(socket, relay);
  }

  /** The lab's working directory (sockets, logs). */
  public Path dir() {
    return dir;
  }

  /** Deletes every host, the segment and the relays. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Host host : new ArrayList<>(hosts.values())) {
      host.delete();
    }
    for (Process p : processes) {
      p.destroyForcibly();
    }
    run(10, "ip", "netns", "del", lan);
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temp dir; nothing depends on it
    }
  }

  /** One namespace on the segment. */
  public final class Host {
    private final String name;
    private final String namespace;
    private final String nic;
    private final List<Process> own = new ArrayList<>();
    private boolean deleted;

    private Host(String name, String namespace, String nic) {
      this.name = name;
      this.namespace = namespace;
      this.nic = nic;
    }

    public String name() {
      return name;
    }

    /** The namespace, as {@code ip netns} names it. */
    public String namespace() {
      return namespace;
    }

    /** The interface on the segment. */
    public String nic() {
      return nic;
    }

    /** Makes {@code 127.0.0.1:port} inside this host lead to the same port of the machine. */
    public void reachLoopback(int port) throws IOException {
      shareLoopback(port);
      start(
          List.of(
              "socat",
              "TCP-LISTEN:" + port + ",bind=127.0.0.1,reuseaddr,fork",
              "UNIX-CONNECT:" + socket(port)),
          dir.resolve(name + "-loopback-" + port + ".log"));
    }

    /**
     * Starts {@code command} inside this host, its output appended to {@code log}; the process is
     * killed when the host is deleted.
     */
    public Process start(List<String> command, Path log) throws IOException {
      List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
      full.addAll(command);
      Process process = NetLab.this.start(full, log);
      synchronized (NetLab.this) {
        own.add(process);
      }
      return process;
    }

    /** Runs {@code command} inside this host to completion, within {@code timeoutSeconds}. */
    public Result run(int timeoutSeconds, String... command) {
      List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
      full.addAll(List.of(command));
      return NetLab.run(timeoutSeconds, full.toArray(String[]::new));
    }

    /** The IPv4 addresses on {@link #nic()}, as {@code a.b.c.d/n}. */
    public List<String> addresses() {
      Result shown = NetLab.run(10, "ip", "-n", namespace, "-4", "-o", "addr", "show", "dev", nic);
      List<String> addresses = new ArrayList<>();
      for (String line : shown.output().split("\n")) {
        String[] words = line.trim().split("\\s+");
        for (int i = 0; i + 1 < words.length; i++) {
          if (words[i].equals("inet")) {
            addresses.add(words[i + 1]);
          }
        }
      }
      return addresses;
    }

    /**
     * Removes the host as a crashed node or a deleted pod would vanish: its processes are killed
     * without warning and its namespace, with its interface and addresses, is deleted.
     */
    public void delete() {
      synchronized (NetLab.this) {
        if (deleted) {
          return;
        }
        deleted = true;
        for (Process p : own) {
          p.destroyForcibly();
        }
        for (Process p : own) {
          try {
            p.waitFor(5, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        NetLab.run(10, "ip", "netns", "del", namespace);
        hosts.remove(name);
      }
    }

    @Override
    public String toString() {
      return name + " (" + namespace + ", " + nic + ")";
    }
  }

  private Path socket(int port) {
    return dir.resolve("loopback-" + port + ".sock");
  }

  private synchronized Process start(List<String> command, Path log) throws IOException {
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    processes.add(process);
    return process;
  }

  private static void awaitPath(Path path, Process owner) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!Files.exists(path)) {
      if (!owner.isAlive() || System.nanoTime() > deadline) {
        throw new IOException(
            "socat did not create "
                + path
                + " (exit "
                + (owner.isAlive() ? "none, still running" : owner.exitValue())
                + ")");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
  }

  private void must(String... command) throws IOException {
    Result result = run(10, command);
    if (!result.ok()) {
      throw new IOException(
          "'"
              + String.join(" ", command)
              + "' failed (exit "
              + result.exit()
              + "): "
              + result.output());
    }
  }

  /** Runs a command to completion; never throws (a failure to start is exit -1). */
  public static Result run(int timeoutSeconds, String... command) {
    Path output = null;
    try {
      output = Files.createTempFile("netlab-", ".out");
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new Result(
            -1,
            "timed out after "
                + timeoutSeconds
                + " s: "
                + Files.readString(output, StandardCharsets.UTF_8).strip());
      }
      return new Result(
          process.exitValue(), Files.readString(output, StandardCharsets.UTF_8).strip());
    } catch (IOException e) {
      return new Result(-1, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, "interrupted");
    } finally {
      if (output != null) {
        output.toFile().delete();
      }
    }
  }

  private static boolean onPath(String tool) {
    String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    for (String entry : (path + ":/usr/sbin:/sbin").split(":")) {
      if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, tool))) {
        return true;
      }
    }
    return false;
  }
}
