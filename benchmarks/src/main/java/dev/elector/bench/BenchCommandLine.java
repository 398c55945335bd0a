package dev.elector.bench;

import java.io.PrintStream;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** The benchmarks' command lines, on picocli: {@code --help}, and a bad flag named with the fix. */
final class BenchCommandLine {
  /** The exit status for a bad command line. */
  static final int USAGE_ERROR = 2;

  private BenchCommandLine() {}

  /**
   * Reads {@code args} into {@code command}, an object annotated with picocli's {@code @Command}.
   *
   * @return whether the program should go on: false after printing the usage for {@code --help}
   * @throws ParameterException naming the bad flag
   */
  static boolean parse(Object command, PrintStream out, String... args) {
    CommandLine cli = new CommandLine(command);
    cli.setOverwrittenOptionsAllowed(false);
    cli.setAbbreviatedOptionsAllowed(false);
    cli.parseArgs(args);
    if (cli.isUsageHelpRequested()) {
      cli.usage(out);
      return false;
    }
    return true;
  }

  /**
   * {@link #parse} for a {@code main}: prints the problem and the usage to standard error and exits
   * with {@link #USAGE_ERROR} on a bad command line.
   */
  static boolean parseOrExit(Object command, String... args) {
    try {
      return parse(command, System.out, args);
    } catch (ParameterException e) {
      System.err.println(e.getMessage() + " (see --help)");
      System.exit(USAGE_ERROR);
      return false;
    }
  }
}
