package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.controller.ControllerMain;
import dev.elector.dhcp.agent.AgentMain;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad configuration through the real entry points, as an operator meets it: the DHCP agent's and
 * the IPPool controller's main, each in a process of its own. Every case ends at once with status 2
 * and a message naming what is wrong and how to fix it, and never with a stack trace.
 */
class BadConfigurationIT {
  @TempDir static Path work;

  private static final String VALID =
      """
      apiVersion: v1
      kind: Config
      clusters:
      - name: c
        cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
      users:
      - name: u
        user: {token: t}
      contexts:
      - name: x
        context: {cluster: c, user: u}
      current-context: x
      """;

  static Stream<Arguments> cases() throws Exception {
    Path valid = Files.writeString(Files.createTempFile("valid", ".kubeconfig"), VALID);
    Path garbage =
        Files.writeString(
            Files.createTempFile("garbage", ".kubeconfig"),
            "this: [is not: a kubeconfig\n\u0000\u0001");
    Path noServer =
        Files.writeString(
            Files.createTempFile("noserver", ".kubeconfig"),
            "apiVersion: v1\nkind: Config\ncurrent-context: nowhere\n");
    Map<String, String> pod = Map.of("POD_NAMESPACE", "default");
    String agent = AgentMain.class.getName();
    String controller = ControllerMain.class.getName();
    List<String> agentBase = List.of("--ippool-ref", "default/net-48", "--dry-run");
    return Stream.of(
        Arguments.of(
            "agent: garbage kubeconfig",
            agent,
            pod,
            plus(agentBase, "--kubeconfig", garbage.toString()),
            "is not a usable kubeconfig"),
        Arguments.of(
            "agent: kubeconfig without a server",
            agent,
            pod,
            plus(agentBase, "--kubeconfig", noServer.toString()),
            "is not a usable kubeconfig"),
        Arguments.of(
            "agent: missing kubeconfig",
            agent,
            pod,
            plus(agentBase, "--kubeconfig", "/nonexistent/kubeconfig"),
            "does not exist or cannot be read"),
        Arguments.of(
            "agent: renew deadline longer than the lease",
            agent,
            pod,
            plus(
                agentBase,
                "--kubeconfig",
                valid.toString(),
                "--lease-duration",
                "5s",
                "--renew-deadline",
                "10s"),
            "renewDeadline PT10S must be shorter than leaseDuration PT5S"),
        Arguments.of(
            "agent: a duration that is not one",
            agent,
            pod,
            plus(agentBase, "--kubeconfig", valid.toString(), "--retry-period", "fast"),
            "--retry-period 'fast' is not a duration; write it like 15s"),
        Arguments.of(
            "agent: negative duration",
            agent,
            pod,
            plus(agentBase, "--kubeconfig", valid.toString(), "--lease-duration", "PT-5S"),
            "--lease-duration PT-5S must be" + " positive"),
        Arguments.of(
            "agent: no namespace",
            agent,
            Map.of(),
            plus(agentBase, "--kubeconfig", valid.toString()),
            "no namespace for the Lease"),
        Arguments.of(
            "agent: blank identity",
            agent,
            pod,
            plus(agentBase, "--kubeconfig", valid.toString(), "--identity", "  "),
            "--identity is blank"),
        Arguments.of(
            "agent: no pool",
            agent,
            pod,
            List.of("--dry-run", "--kubeconfig", valid.toString()),
            "pass --ippool-ref NAMESPACE/NAME or set IPPOOL_REF"),
        Arguments.of(
            "controller: garbage kubeconfig",
            controller,
            pod,
            List.of("--kubeconfig", garbage.toString()),
            "kubeconfig"),
        Arguments.of(
            "controller: missing kubeconfig",
            controller,
            pod,
            List.of("--kubeconfig", "/nonexistent/kubeconfig"),
            "kubeconfig"),
        Arguments.of(
            "controller: renew deadline longer than the lease",
            controller,
            pod,
            List.of(
                "--kubeconfig",
                valid.toString(),
                "--lease-duration",
                "5s",
                "--renew-deadline",
                "10s"),
            "renew"),
        Arguments.of(
            "controller: a duration that is not one",
            controller,
            pod,
            List.of("--kubeconfig", valid.toString(), "--retry-period", "fast"),
            "--retry-period"),
        Arguments.of(
            "controller: no namespace",
            controller,
            Map.of(),
            List.of("--kubeconfig", valid.toString()),
            "namespace"),
        Arguments.of(
            "controller: blank identity",
            controller,
            pod,
            List.of("--kubeconfig", valid.toString(), "--identity", " "),
            "identity"));
  }

  private static List<String> plus(List<String> base, String... more) {
    List<String> all = new ArrayList<>(base);
    all.addAll(List.of(more));
    return all;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void endsWithStatusTwoAndAMessageNamingTheFix(
      String what, String mainClass, Map<String, String> env, List<String> args, String expected)
      throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().remove("POD_NAMESPACE");
    builder.environment().remove("KUBECONFIG");
    builder.environment().putAll(env);
    Path output = work.resolve(what.replaceAll("[^a-z]+", "-") + ".out");
    Process process = builder.redirectErrorStream(true).redirectOutput(output.toFile()).start();
    assertTrue(process.waitFor(60, TimeUnit.SECONDS), what + ": still running");
    String text = Files.readString(output, StandardCharsets.UTF_8);
    Figures.record(
        "bad-config",
        what.replace(' ', '-'),
        text.lines()
            .filter(l -> !l.isBlank())
            .reduce((a, b) -> a + " | " + b)
            .orElse("")
            .replaceAll("\\s+", " "));

    assertEquals(2, process.exitValue(), what + ":\n" + text);
    assertTrue(text.contains(expected), what + ": expected '" + expected + "' in:\n" + text);
    assertFalse(
        text.contains("\tat ") || text.contains("Exception in thread"),
        what + ": a stack trace:\n" + text);
  }
}
