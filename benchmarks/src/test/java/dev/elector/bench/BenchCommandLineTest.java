package dev.elector.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

/** The command lines of BenchMain and ScaleSteps: their flags, --help, and bad flags named. */
class BenchCommandLineTest {
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

  @Test
  void benchMainReadsTheFlagsOfRunSh() {
    BenchMain.Cli cli = new BenchMain.Cli();

    assertTrue(
        BenchCommandLine.parse(
            cli, out, "--binary", "/bin/x", "--quick", "--out", "o", "--latency"));

    assertTrue(cli.quick);
    assertTrue(cli.latency);
    assertEquals(Path.of("o"), cli.out);
    assertEquals(Path.of("/bin/x"), cli.binary);
  }

  @Test
  void benchMainDefaultsToTheFullRunIntoBenchmarks() {
    BenchMain.Cli cli = new BenchMain.Cli();

    assertTrue(BenchCommandLine.parse(cli, out));

    assertFalse(cli.quick);
    assertFalse(cli.latency);
    assertEquals(Path.of("benchmarks"), cli.out);
  }

  @Test
  void scaleStepsKeepsEveryRepeatedImplAndSize() {
    ScaleSteps.Cli cli = new ScaleSteps.Cli();

    assertTrue(
        BenchCommandLine.parse(cli, out, "--impl", "elector", "--n", "1000", "--n", "10000"));

    assertEquals(List.of("elector"), cli.impls);
    assertEquals(List.of(1000, 10000), cli.sizes);
    assertEquals(Path.of("target", "bench-scale"), cli.out);
  }

  @Test
  void badFlagsAreNamed() {
    assertProblem(new BenchMain.Cli(), "--fast", "--fast");
    assertProblem(new BenchMain.Cli(), "--out", "--out");
    assertProblem(new BenchMain.Cli(), "--quick", "--quick", "--quick");
    assertProblem(new ScaleSteps.Cli(), "'ten'", "--n", "ten");
  }

  @Test
  void helpPrintsEveryFlagAndStops() {
    assertFalse(BenchCommandLine.parse(new BenchMain.Cli(), out, "--help"));
    assertFalse(BenchCommandLine.parse(new ScaleSteps.Cli(), out, "--help"));

    String usage = printed.toString(StandardCharsets.UTF_8);
    for (String flag : List.of("--quick", "--latency", "--out", "--binary", "--impl", "--n")) {
      assertTrue(usage.contains(flag), flag + " in\n" + usage);
    }
  }

  private void assertProblem(Object cli, String named, String... args) {
    ParameterException e =
        assertThrows(ParameterException.class, () -> BenchCommandLine.parse(cli, out, args));
    assertTrue(e.getMessage().contains(named), e.getMessage());
  }
}
