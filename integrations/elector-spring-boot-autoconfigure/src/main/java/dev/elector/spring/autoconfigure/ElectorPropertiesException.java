package dev.elector.spring.autoconfigure;

import java.util.List;

/**
 * The {@code elector.*} configuration cannot make an elector: the message lists every problem, each
 * naming the property, the value and the fix. Start-up fails with it.
 */
public final class ElectorPropertiesException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /**
   * @serial the problems, one sentence each
   */
  private final List<String> problems;

  ElectorPropertiesException(List<String> problems) {
    super(format(problems));
    this.problems = List.copyOf(problems);
  }

  /** Every problem found, one sentence each. */
  public List<String> problems() {
    return problems;
  }

  private static String format(List<String> problems) {
    StringBuilder message =
        new StringBuilder("Elector cannot start (")
            .append(problems.size())
            .append(problems.size() == 1 ? " problem):" : " problems):");
    for (String problem : problems) {
      message.append("\n  - ").append(problem);
    }
    return message.toString();
  }
}
