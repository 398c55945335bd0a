package dev.elector;

import java.util.List;

/**
 * Thrown by {@link ElectorConfig.Builder#build()} when the configuration is invalid. The message
 * lists every violation, each with the value given, the rule and how to fix it.
 */
public final class ElectorConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * @serial the violations, one sentence each
   */
  private final List<String> violations;

  ElectorConfigException(List<String> violations) {
    super(format(violations));
    this.violations = List.copyOf(violations);
  }

  /** Every violation found, one sentence each. */
  public List<String> violations() {
    return violations;
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
