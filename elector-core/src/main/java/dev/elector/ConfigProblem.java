package dev.elector;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;

/**
 * One rule a configuration breaks, as data: the setting, the value given, the rule and the fix, so
 * that a framework can name the setting its own way (a property such as {@code
 * elector.renew-deadline}) without parsing the text. {@link #message()} writes the sentence the
 * exception of {@link ElectorConfig.Builder#build()} lists, for example {@code renewDeadline PT12S
 * must be shorter than leaseDuration PT10S; raise leaseDuration or lower renewDeadline}.
 *
 * @param setting the builder option the rule is about, such as {@code renewDeadline}
 * @param value the value given, as the message writes it ({@code PT12S}, {@code 0.5}, a name in
 *     double quotes); empty when the setting is missing, or blank where a blank value is the
 *     problem
 * @param rule the rule the value breaks, worded as the message words it after the setting and the
 *     value, such as {@code must be shorter than leaseDuration PT10S}; other settings it names are
 *     named by their builder options
 * @param fix what to change, such as {@code raise leaseDuration or lower renewDeadline}; other
 *     settings it names are named by their builder options
 */
public record ConfigProblem(String setting, String value, String rule, String fix)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * A problem; every part is required, and {@code value} and {@code fix} may be empty.
   *
   * @throws NullPointerException if a part is null
   */
  public ConfigProblem {
    Objects.requireNonNull(setting, "setting");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(fix, "fix");
  }

  /**
   * The sentence: setting, value (when not blank), rule, then the fix after a semicolon, such as
   * {@code maxBackoff PT1S must be at least retryPeriod PT2S; raise maxBackoff}.
   */
  public String message() {
    return message(Map.of());
  }

  /**
   * The sentence of {@link #message()} with every setting it names, in the setting, the rule and
   * the fix, written as {@code names} maps it: a framework passes its property names, such as
   * {@code renewDeadline} to {@code elector.renew-deadline}. A word that is not a key of {@code
   * names} stays as it is.
   *
   * @param names the name to write for a builder option, keyed by the option
   */
  public String message(Map<String, String> names) {
    StringBuilder text = new StringBuilder();
    text.append(names.getOrDefault(setting, setting));
    if (!value.isBlank()) {
      text.append(' ').append(value);
    }
    text.append(' ');
    appendRenamed(text, rule, names);
    if (!fix.isEmpty()) {
      text.append("; ");
      appendRenamed(text, fix, names);
    }
    return text.toString();
  }

  /** Appends {@code text} with each word (letters and digits) that {@code names} maps replaced. */
  private static void appendRenamed(StringBuilder out, String text, Map<String, String> names) {
    if (names.isEmpty()) {
      out.append(text);
      return;
    }
    int i = 0;
    while (i < text.length()) {
      if (!Character.isLetterOrDigit(text.charAt(i))) {
        out.append(text.charAt(i));
        i++;
        continue;
      }
      int end = i;
      while (end < text.length() && Character.isLetterOrDigit(text.charAt(end))) {
        end++;
      }
      String word = text.substring(i, end);
      out.append(names.getOrDefault(word, word));
      i = end;
    }
  }
}
