package dev.elector;

import java.util.ArrayList;
import java.util.List;

/**
 * Thrown by {@link ElectorConfig.Builder#build()} when the configuration is invalid. The message
 * lists every violation, each with the value given, the rule and how to fix it; {@link #problems()}
 * gives the same as data.
 */
public final class ElectorConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 2L;

  /**
   * @serial the violations, one sentence each
   */
  private final List<String> violations;

  /**
   * @serial the violations as data, in the order of {@link #violations}
   */
  private final List<ConfigProblem> problems;

  /**
   * An exception listing {@code problems}, one sentence each in its message.
   *
   * @throws IllegalArgumentException if {@code problems} is empty
   */
  public ElectorConfigException(List<ConfigProblem> problems) {
    this(requireSome(problems), messages(problems));
  }

  private ElectorConfigException(List<ConfigProblem> problems, List<String> violations) {
    super(format(violations));
    this.problems = List.copyOf(problems);
    this.violations = violations;
  }

  /** Every violation found, one sentence each: the {@link ConfigProblem#message()} of each. */
  public List<String> violations() {
    return violations;
  }

  /**
   * Every violation found, as data: the setting, the value, the rule and the fix of each, in the
   * order of {@link #violations()}.
   */
  public List<ConfigProblem> problems() {
    return problems;
  }

  private static List<ConfigProblem> requireSome(List<ConfigProblem> problems) {
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an ElectorConfigException needs at least one problem");
    }
    return problems;
  }

  private static List<String> messages(List<ConfigProblem> problems) {
    List<String> messages = new ArrayList<>(problems.size());
    for (ConfigProblem problem : problems) {
      messages.add(problem.message());
    }
    return List.copyOf(messages);
  }

  private static String format(List<String> violations) {
    StringBuilder message =
        new StringBuilder("Invalid elector configuration (")
            .append(violations.size())
            .append(violations.size() == 1 ? " problem):" : " problems):");
    for (String violation : violations) {
      message.append("\n  - ").append(violation);
    }
    return message.toString();
  }
}
