package dev.elector.dhcp.agent;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.server.Ipv4Cidr;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool's server address on the served NIC, which moves with leadership: the leader adds it when
 * its term starts and removes it when the term ends (this needs NET_ADMIN). After adding it, the
 * agent announces it with a gratuitous ARP (when {@code arping} is installed), so clients that knew
 * the previous leader's MAC for it send their next renewal to the new leader.
 */
interface ServerAddress {

  /**
   * Puts the address on the NIC; doing so twice is harmless.
   *
   * @throws IOException naming the command and its error output when it fails
   */
  void add() throws IOException;

  /** Takes the address off the NIC; best effort, logged when it fails. */
  void remove();

  /** What this is, for logs. */
  String describe();

  /** The address with its prefix, such as {@code 192.0.2.1/24}, for events; "-" for none. */
  String address();

  /** The interface, for events; "-" for none. */
  String nic();

  /** For --dry-run: never touches an interface. */
  static ServerAddress none() {
    return new ServerAddress() {
      @Override
      public void add() {}

      @Override
      public void remove() {}

      @Override
      public String describe() {
        return "no interface change (dry run)";
      }

      @Override
      public String address() {
        return "-";
      }

      @Override
      public String nic() {
        return "-";
      }
    };
  }

  /**
   * The address {@code ip} with {@code cidr}'s prefix on {@code nic}, through iproute2; the
   * announcement runs in the background, so serving never waits for arping's reply window.
   */
  static ServerAddress onInterface(String nic, Ipv4Address ip, Ipv4Cidr cidr, Commands commands) {
    return onInterface(nic, ip, cidr, commands, IpCommand::inBackground);
  }

  /** As above, announcing on {@code announcer}. */
  static ServerAddress onInterface(
      String nic, Ipv4Address ip, Ipv4Cidr cidr, Commands commands, Executor announcer) {
    return new IpCommand(nic, ip + "/" + cidr.prefixLength(), ip.toString(), commands, announcer);
  }

  /** Runs system commands; a seam for tests. */
  interface Commands {
    /** The real system: runs the command and waits up to 10 s for it. */
    Commands SYSTEM =
        command -> {
          Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
          try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
              process.destroyForcibly();
              return new Result(-1, "timed out after 10 s");
            }
          } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + String.join(" ", command), e);
          }
          String output =
              new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
          return new Result(process.exitValue(), output.strip());
        };

    /** Runs {@code command}; throws only when it cannot be started. */
    Result run(List<String> command) throws IOException;
  }

  /** A command's exit status and combined output. */
  record Result(int exit, String output) {}

  /** {@code ip addr replace|del ADDRESS/PREFIX dev NIC}, then {@code arping -U}. */
  final class IpCommand implements ServerAddress {
    private static final Logger log = LoggerFactory.getLogger(ServerAddress.class);

    private final String nic;
    private final String address;
    private final String ip;
    private final Commands commands;
    private final Executor announcer;

    IpCommand(String nic, String address, String ip, Commands commands, Executor announcer) {
      this.nic = Objects.requireNonNull(nic, "nic");
      this.address = address;
      this.ip = ip;
      this.commands = Objects.requireNonNull(commands, "commands");
      this.announcer = Objects.requireNonNull(announcer, "announcer");
    }

    private static void inBackground(Runnable task) {
      Thread thread = new Thread(task, "dhcp-agent-arp-announce");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void add() throws IOException {
      List<String> command = List.of("ip", "addr", "replace", address, "dev", nic);
      Result result = commands.run(command);
      if (result.exit() != 0) {
        throw new IOException(
            "'"
                + String.join(" ", command)
                + "' failed (exit "
                + result.exit()
                + "): "
                + result.output()
                + hint(result.output()));
      }
      announcer.execute(this::announce);
    }

    private void announce() {
      List<String> command = List.of("arping", "-U", "-c", "1", "-I", nic, ip);
      try {
        Result result = commands.run(command);
        if (result.exit() != 0) {
          log.debug("gratuitous ARP for {} on {} failed: {}", ip, nic, result.output());
        }
      } catch (IOException e) {
        log.debug(
            "arping is not available ({}); clients learn the new MAC for {} when their"
                + " ARP entries expire",
            e.getMessage(),
            ip);
      }
    }

    @Override
    public void remove() {
      List<String> command = List.of("ip", "addr", "del", address, "dev", nic);
      try {
        Result result = commands.run(command);
        if (result.exit() != 0 && !result.output().contains("Cannot assign requested address")) {
          log.error(
              "could not remove the server address: '{}' failed (exit {}): {}",
              String.join(" ", command),
              result.exit(),
              result.output());
        }
      } catch (IOException e) {
        log.error(
            "could not remove the server address {} from {}: {}", address, nic, e.getMessage());
      }
    }

    @Override
    public String describe() {
      return address + " on " + nic;
    }

    @Override
    public String address() {
      return address;
    }

    @Override
    public String nic() {
      return nic;
    }

    private String hint(String output) {
      if (output.contains("Operation not permitted")) {
        return "; the agent needs the NET_ADMIN capability (securityContext.capabilities.add)";
      }
      if (output.contains("Cannot find device")) {
        return "; check --nic: the interface " + nic + " does not exist in this network namespace";
      }
      return "";
    }
  }
}
