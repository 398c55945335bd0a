package dev.elector.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The examples' command lines, on picocli: {@code --flag value} or {@code --flag=value}, each flag
 * at most once, durations ({@link DurationConverter}), whole numbers and {@link HostPort}s read the
 * same way, and every problem reported as one line naming the flag and the fix.
 */
public final class CommandLines {
  /** The exit status for a bad command line or environment. */
  public static final int USAGE_ERROR = 2;

  private CommandLines() {}

  /**
   * A command line for {@code command}, an object annotated with picocli's {@code @Command} and
   * {@code @Option}; parse it with {@link #parse}.
   */
  public static CommandLine create(Object command) {
    CommandLine cli = new CommandLine(command);
    cli.registerConverter(Duration.class, new DurationConverter());
    cli.registerConverter(HostPort.class, new HostPort.Converter());
    cli.registerConverter(Integer.class, CommandLines::wholeNumber);
    cli.registerConverter(int.class, CommandLines::wholeNumber);
    cli.setOverwrittenOptionsAllowed(false);
    cli.setAbbreviatedOptionsAllowed(false);
    cli.getCommandSpec().parser().collectErrors(true);
    return cli;
  }

  /** What {@link #parse} found: picocli's result and every problem, one line each. */
  public record Parsed(ParseResult result, List<String> problems) {
    /** Whether {@code --help} or {@code --version} was given. */
    public boolean helpOrVersion() {
      return result.isUsageHelpRequested() || result.isVersionHelpRequested();
    }
  }

  /** Parses {@code args}, filling the command's fields and collecting every problem. */
  public static Parsed parse(CommandLine cli, String... args) {
    ParseResult result = cli.parseArgs(args);
    Set<String> problems = new LinkedHashSet<>(); // picocli may report one problem twice
    for (Exception e : result.errors()) {
      problems.addAll(describe(cli, e));
    }
    return new Parsed(result, List.copyOf(problems));
  }

  /**
   * Prints the usage or the version if the command line asked for it.
   *
   * @return whether it did
   */
  public static boolean printHelpOrVersion(CommandLine cli, Parsed parsed, PrintStream out) {
    if (parsed.result().isUsageHelpRequested()) {
      cli.usage(out);
      return true;
    }
    if (parsed.result().isVersionHelpRequested()) {
      cli.printVersionHelp(out);
      return true;
    }
    return false;
  }

  /**
   * Reads a value with {@code parser}, turning its failure into a picocli conversion error that
   * says what was expected.
   */
  public static <T> T convert(String text, Function<String, T> parser, String expected) {
    try {
      return parser.apply(text.trim());
    } catch (RuntimeException e) {
      throw new TypeConversionException(
          "'"
              + text
              + "' is not "
              + expected
              + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"));
    }
  }

  private static int wholeNumber(String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + text + "' is not a whole number; write it like 2");
    }
  }

  private static List<String> describe(CommandLine cli, Exception error) {
    if (error instanceof UnmatchedArgumentException unmatched) {
      List<String> lines = new ArrayList<>();
      for (String arg : unmatched.getUnmatched()) {
        if (arg.startsWith("-")) {
          String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
          lines.add("unknown flag " + name + "; known flags: " + knownFlags(cli));
        } else {
          lines.add("unexpected argument '" + arg + "'; every setting is a --flag (see --help)");
        }
      }
      return lines;
    }
    if (error instanceof OverwrittenOptionException overwritten) {
      return List.of(name(overwritten.getOverwritten()) + " is given twice; give it once");
    }
    if (error instanceof MissingParameterException missing) {
      List<String> lines = new ArrayList<>();
      for (ArgSpec spec : missing.getMissing()) {
        if (spec instanceof OptionSpec option) {
          lines.add(
              option.longestName()
                  + " needs a value, for example "
                  + option.longestName()
                  + " "
                  + option.paramLabel());
        }
      }
      if (!lines.isEmpty()) {
        return lines;
      }
    }
    if (error instanceof ParameterException parameter
        && parameter.getArgSpec() != null
        && error.getCause() instanceof TypeConversionException conversion) {
      return List.of(name(parameter.getArgSpec()) + " " + conversion.getMessage());
    }
    return List.of(String.valueOf(error.getMessage()));
  }

  private static String name(ArgSpec spec) {
    return spec instanceof OptionSpec option ? option.longestName() : spec.paramLabel();
  }

  private static String knownFlags(CommandLine cli) {
    return cli.getCommandSpec().options().stream()
        .filter(o -> !o.usageHelp() && !o.versionHelp())
        .map(OptionSpec::longestName)
        .collect(Collectors.joining(", "));
  }

  /** {@code --version}: the command's name and the Elector version it was built from. */
  public static final class Version implements IVersionProvider {
    @Spec private CommandLine.Model.CommandSpec spec;

    @Override
    public String[] getVersion() {
      return new String[] {spec.name() + " " + projectVersion() + " (Elector example)"};
    }
  }

  /** The version this jar was built as, from Maven's pom.properties; "development build" else. */
  static String projectVersion() {
    try (InputStream in =
        CommandLines.class.getResourceAsStream(
            "/META-INF/maven/dev.elector/examples-common/pom.properties")) {
      if (in == null) {
        return "development build";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "development build");
    } catch (IOException e) {
      return "development build";
    }
  }
}
