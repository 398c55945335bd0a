package dev.elector.spring.autoconfigure;

import java.util.List;

/**
 * The {@code elector.*} configuration cannot make an elector: the message lists every problem, each
 * naming the property, the value and the fix. Start-up fails with it, and {@link
 * ElectorFailureAnalyzer} turns it into Boot's failure report. Not API: an application reads the
 * message, not the type.
 */
final class ElectorPropertiesException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  ElectorPropertiesException(List<String> problems) {
    super(format(problems));
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
