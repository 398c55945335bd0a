package dev.elector.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

class CommandLinesTest {

  @Command(
      name = "tool",
      mixinStandardHelpOptions = true,
      versionProvider = CommandLines.Version.class)
  static final class Tool {
    @Option(names = "--period", paramLabel = "D", description = "how often")
    Duration period;

    @Option(names = "--count", paramLabel = "N", description = "how many")
    Integer count;

    @Option(names = "--addr", paramLabel = "HOST:PORT", description = "where")
    HostPort addr;

    @Option(names = "--quiet", description = "say less")
    boolean quiet;
  }

  private static CommandLines.Parsed parse(Tool tool, String... args) {
    return CommandLines.parse(CommandLines.create(tool), args);
  }

  @Test
  void readsEachKindOfValue() {
    Tool tool = new Tool();
    CommandLines.Parsed parsed =
        parse(tool, "--period", "1m30s", "--count=3", "--addr", ":9000", "--quiet");

    assertEquals(List.of(), parsed.problems());
    assertFalse(parsed.helpOrVersion());
    assertEquals(Duration.ofSeconds(90), tool.period);
    assertEquals(3, tool.count);
    assertEquals(new HostPort("0.0.0.0", 9000), tool.addr);
    assertTrue(tool.quiet);
  }

  @Test
  void reportsEveryProblemNamingTheFlagAndTheFix() {
    List<String> problems =
        parse(
                new Tool(),
                "--period",
                "15x",
                "--count",
                "two",
                "--addr",
                "8080",
                "--cuont",
                "x",
                "--count")
            .problems();

    assertTrue(
        problems.contains(
            "--period '15x' is not a duration; write it like 15s, 500ms, 2m," + " 1m30s or PT15S"),
        problems.toString());
    assertTrue(
        problems.contains("--count 'two' is not a whole number; write it like 2"),
        problems.toString());
    assertTrue(
        problems.contains(
            "--addr '8080' is not HOST:PORT; write it like 0.0.0.0:8080 or"
                + " 127.0.0.1:0 (port 0 picks a free port)"),
        problems.toString());
    assertTrue(
        problems.contains(
            "unknown flag --cuont; known flags: --period, --count, --addr," + " --quiet"),
        problems.toString());
    assertTrue(
        problems.contains("unexpected argument 'x'; every setting is a --flag (see --help)"),
        problems.toString());
    assertEquals(
        List.of("--period is given twice; give it once"),
        parse(new Tool(), "--period", "1s", "--period=2s").problems());
    assertTrue(
        problems.contains("--count needs a value, for example --count N"), problems.toString());
  }

  @Test
  void aDurationMustBePositive() {
    assertEquals(
        List.of("--period 0s must be positive, for example 15s"),
        parse(new Tool(), "--period", "0s").problems());
    assertEquals(
        List.of("--period PT-1S must be positive, for example 15s"),
        parse(new Tool(), "--period", "PT-1S").problems());
  }

  @Test
  void helpListsTheFlagsAndVersionNamesTheTool() {
    Tool tool = new Tool();
    CommandLine cli = CommandLines.create(tool);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);

    assertTrue(CommandLines.printHelpOrVersion(cli, CommandLines.parse(cli, "--help"), print));
    String usage = out.toString(StandardCharsets.UTF_8);
    assertTrue(usage.startsWith("Usage: tool "), usage);
    assertTrue(usage.contains("--period=D") && usage.contains("how often"), usage);
    assertTrue(usage.contains("--version"), usage);

    out.reset();
    assertTrue(CommandLines.printHelpOrVersion(cli, CommandLines.parse(cli, "--version"), print));
    assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("tool "), out.toString());
    assertFalse(CommandLines.printHelpOrVersion(cli, CommandLines.parse(cli, "--quiet"), print));
  }

  @Test
  void readsGoAndIsoDurations() {
    assertEquals(Duration.ofMillis(1500), DurationConverter.parse("1s500ms"));
    assertEquals(Duration.ofMinutes(2), DurationConverter.parse("2m"));
    assertEquals(Duration.ofHours(1).plusMinutes(30), DurationConverter.parse("1h30m"));
    assertEquals(Duration.ofSeconds(15), DurationConverter.parse("PT15S"));
    assertEquals(Duration.ofMillis(250), DurationConverter.parse(" 250ms "));
    for (String bad : List.of("15", "s", "3s junk", "", "PTxS", "99999999999999999999s")) {
      assertThrows(TypeConversionException.class, () -> DurationConverter.parse(bad), bad);
    }
  }

  @Test
  void hostPortsMayOmitTheHostOrUseIpv6() {
    assertEquals("0.0.0.0:9000", HostPort.parse(":9000").toString());
    assertEquals("::1:0", HostPort.parse("[::1]:0").toString());
    assertEquals(new HostPort("127.0.0.1", 8080), HostPort.parse("127.0.0.1:8080"));
    assertThrows(TypeConversionException.class, () -> HostPort.parse("localhost"));
    assertThrows(TypeConversionException.class, () -> HostPort.parse("h:65536"));
  }
}
