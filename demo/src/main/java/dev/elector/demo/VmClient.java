package dev.elector.demo;

import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.lab.NetLab;
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
 * A VM's NIC on the pool's network: a namespace with the VM's MAC running Debian's busybox udhcpc
 * in the foreground, which records the variables of each of its events (bound, renew, ...) in a
 * file named after the event.
 */
final class VmClient implements AutoCloseable {
  private final NetLab.Host host;
  private final Path dir;
  private Process client;

  VmClient(NetLab lab, String name, MacAddress mac, Path work) throws IOException {
    this.host = lab.addHost(name, "eth0", Optional.of(mac));
    this.dir = Files.createDirectories(work.resolve(name + "-dhcp"));
  }

  /** Starts udhcpc; it keeps its lease and renews until closed. */
  void start() throws IOException {
    Path script = dir.resolve("udhcpc.sh");
    Files.writeString(script, String.join("\n", "#!/bin/sh",
        "{ echo \"event=$1\"; env | grep -E '^(ip|subnet|mask|router|dns|domain|search|ntpsrv"
            + "|lease|serverid)='; } > " + dir + "/$1.tmp && mv " + dir + "/$1.tmp " + dir + "/$1",
        "case \"$1\" in",
        "  bound|renew) ip addr replace \"$ip/$mask\" dev \"$interface\" ;;",
        "  deconfig) ip addr flush dev \"$interface\" ;;",
        "esac", ""));
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    client = host.start(List.of("udhcpc", "-f", "-t", "10", "-T", "1", "-i", "eth0", "-s",
        script.toString(), "-O", "ntpsrv", "-O", "search"), dir.resolve("udhcpc.log"));
  }

  /** Asks udhcpc to renew now (SIGUSR1), as it would at half its lease. */
  void renewNow() {
    NetLab.run(5, "kill", "-USR1", Long.toString(client.pid()));
  }

  /** Forgets a recorded event, to wait for the next one of that kind. */
  void forget(String event) throws IOException {
    Files.deleteIfExists(dir.resolve(event));
  }

  /** Waits for an event ("bound", "renew") and returns its variables. */
  Map<String, String> await(String event, Duration limit) throws IOException,
      InterruptedException {
    Path file = dir.resolve(event);
    long deadline = System.nanoTime() + limit.toNanos();
    while (!Files.exists(file)) {
      if (System.nanoTime() > deadline) {
        throw new IOException("udhcpc reported no '" + event + "' within " + limit + ": "
            + Files.readString(dir.resolve("udhcpc.log")));
      }
      Thread.sleep(20);
    }
    Map<String, String> env = new TreeMap<>();
    for (String line : Files.readAllLines(file)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }

  @Override
  public void close() {
    if (client != null) {
      client.destroy();
    }
    host.delete();
  }
}
