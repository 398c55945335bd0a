package dev.elector.dhcp.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Debian's busybox udhcpc on a lab host's interface, as a VM's DHCP client. Its script records the
 * variables of each event ({@code bound}, {@code renew}, {@code deconfig}, ...) in a file named
 * after the event, configures the address on bound and renew, and flushes it on deconfig.
 */
public final class Udhcpc implements AutoCloseable {
  private final NetLab.Host host;
  private final Path dir;
  private final Path script;
  private Process running;

  /** A client on {@code host}'s interface, keeping its files in {@code dir}. */
  public Udhcpc(NetLab.Host host, Path dir) throws IOException {
    this.host = host;
    this.dir = Files.createDirectories(dir);
    this.script = dir.resolve("udhcpc.sh");
    Files.writeString(
        script,
        String.join(
            "\n",
            "#!/bin/sh",
            "{ echo \"event=$1\"; env | grep -E '^(ip|subnet|mask|router|dns|domain|search|ntpsrv"
                + "|lease|serverid)='; } > "
                + dir
                + "/$1.tmp && mv "
                + dir
                + "/$1.tmp "
                + dir
                + "/$1",
            "case \"$1\" in",
            "  bound|renew) ip addr replace \"$ip/$mask\" dev \"$interface\" ;;",
            "  deconfig) ip addr flush dev \"$interface\" ;;",
            "esac",
            ""));
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /**
   * Runs one exchange ({@code -q}: quit once bound), sending up to {@code tries} DISCOVERs a second
   * apart; returns the bound event's variables, or empty when no server answered. The address is
   * removed from the interface afterwards.
   */
  public Optional<Map<String, String>> once(int tries) throws IOException {
    return once(tries, List.of());
  }

  /**
   * As {@link #once(int)}, with more udhcpc options: {@code -a -A 1} probes the offered address
   * with ARP first and, when another host answers, declines it and starts over a second later.
   */
  public Optional<Map<String, String>> once(int tries, List<String> options) throws IOException {
    forget("bound");
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                "udhcpc",
                "-f",
                "-q",
                "-n",
                "-t",
                Integer.toString(tries),
                "-T",
                "1",
                "-i",
                host.nic(),
                "-s",
                script.toString(),
                "-O",
                "ntpsrv",
                "-O",
                "search"));
    command.addAll(options);
    NetLab.Result result =
        host.run(tries + 15 + (options.isEmpty() ? 0 : 2 * tries), command.toArray(String[]::new));
    Optional<Map<String, String>> bound =
        result.ok() && Files.exists(dir.resolve("bound"))
            ? Optional.of(read("bound"))
            : Optional.empty();
    host.run(5, "ip", "addr", "flush", "dev", host.nic());
    return bound;
  }

  /** Starts a client that stays in the foreground, keeps its lease and renews it. */
  public void start() throws IOException {
    running =
        host.start(
            List.of(
                "udhcpc",
                "-f",
                "-t",
                "10",
                "-T",
                "1",
                "-i",
                host.nic(),
                "-s",
                script.toString(),
                "-O",
                "ntpsrv",
                "-O",
                "search"),
            dir.resolve("udhcpc.log"));
  }

  /** Makes the running client renew now (SIGUSR1), as it would at half its lease. */
  public void renewNow() {
    if (running != null) {
      NetLab.run(5, "kill", "-USR1", Long.toString(running.pid()));
    }
  }

  /** Forgets a recorded event, to wait for the next one of that kind. */
  public void forget(String event) throws IOException {
    Files.deleteIfExists(dir.resolve(event));
  }

  /** Waits for an event of the running client and returns its variables. */
  public Map<String, String> await(String event, Duration limit)
      throws IOException, InterruptedException {
    Path file = dir.resolve(event);
    long deadline = System.nanoTime() + limit.toNanos();
    while (!Files.exists(file)) {
      if (System.nanoTime() > deadline) {
        Path log = dir.resolve("udhcpc.log");
        throw new IOException(
            "udhcpc reported no '"
                + event
                + "' within "
                + limit
                + (Files.exists(log) ? ": " + Files.readString(log) : ""));
      }
      Thread.sleep(20);
    }
    return read(event);
  }

  private Map<String, String> read(String event) throws IOException {
    Map<String, String> env = new TreeMap<>();
    for (String line : Files.readAllLines(dir.resolve(event))) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }

  /** Stops the running client and removes its address. */
  @Override
  public void close() {
    if (running != null) {
      running.destroy();
      try {
        running.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      running = null;
    }
    host.run(5, "ip", "addr", "flush", "dev", host.nic());
  }
}
