package dev.elector.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.examples.CommandLines;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The demo's command line: the flags of demo.sh, read by picocli, and bad ones named. */
class DemoOptionsTest {
  private static final String MANIFESTS = "../../deploy";

  @Test
  void theFlagsOfDemoShAreRead() {
    Demo.Options options =
        Demo.Options.parse(
            "--quick", "--kubeconfig", "pom.xml", "--summary", "s.json", "--manifests", MANIFESTS);

    assertTrue(options.quick());
    assertFalse(options.noNetns());
    assertEquals(Optional.of(Path.of("pom.xml")), options.kubeconfig());
    assertEquals(Optional.of(Path.of("s.json")), options.summary());
    assertEquals(Optional.empty(), options.work());
    assertEquals(List.of("--lease-duration", "3s"), options.timings().subList(0, 2));
  }

  @Test
  void withoutFlagsTheDemoRunsAtItsFullTimings() {
    Demo.Options options = Demo.Options.parse("--manifests", MANIFESTS);

    assertFalse(options.quick());
    assertEquals(List.of("--lease-duration", "4s"), options.timings().subList(0, 2));
  }

  @Test
  void badFlagsAreNamedWithTheFix() {
    assertProblem("unknown flag --fast; known flags:", "--fast", "--manifests", MANIFESTS);
    assertProblem("--kubeconfig needs a value", "--manifests", MANIFESTS, "--kubeconfig");
    assertProblem(
        "--kubeconfig /nonexistent cannot be read",
        "--kubeconfig",
        "/nonexistent",
        "--manifests",
        MANIFESTS);
    assertProblem("pass --manifests DIR", "--manifests", "/nonexistent");
  }

  @Test
  void helpListsEveryFlag() {
    CommandLine line = CommandLines.create(new Demo.Cli());
    CommandLines.Parsed parsed = CommandLines.parse(line, "--help");
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    assertTrue(
        CommandLines.printHelpOrVersion(
            line, parsed, new PrintStream(out, true, StandardCharsets.UTF_8)));
    String usage = out.toString(StandardCharsets.UTF_8);
    for (String flag :
        List.of("--quick", "--no-netns", "--kubeconfig", "--summary", "--work", "--manifests")) {
      assertTrue(usage.contains(flag), flag + " in\n" + usage);
    }
  }

  private static void assertProblem(String expected, String... args) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse(args));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
