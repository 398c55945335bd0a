package dev.elector.dhcp.agent;

import dev.elector.dhcp.lab.NetLab;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** An agent JVM running inside a lab host, as a pod would: its own network namespace and NIC. */
final class AgentProcess {
  private final String name;
  private final NetLab.Host host;
  private final Process process;
  private final AgentEventLog events;

  private AgentProcess(String name, NetLab.Host host, Process process, Path log) {
    this.name = name;
    this.host = host;
    this.process = process;
    this.events = AgentEventLog.ofFile(name, log);
  }

  /**
   * Starts {@link AgentMain} in {@code host} with this test's class path; {@code POD_NAMESPACE} and
   * {@code POD_NAME} are set as the Downward API would.
   */
  static AgentProcess start(
      String name, NetLab.Host host, Path log, String namespace, List<String> flags)
      throws IOException {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                "env",
                "POD_NAMESPACE=" + namespace,
                "POD_NAME=" + name,
                java,
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                "-cp",
                System.getProperty("java.class.path"),
                AgentMain.class.getName()));
    command.addAll(flags);
    return new AgentProcess(name, host, host.start(command, log), log);
  }

  String name() {
    return name;
  }

  NetLab.Host host() {
    return host;
  }

  AgentEventLog events() {
    return events;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGTERM, as the kubelet does on a graceful pod deletion; waits for the exit. */
  int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(name + " did not exit within 30 s of SIGTERM");
    }
    return process.exitValue();
  }

  @Override
  public String toString() {
    return name + " in " + host;
  }
}
