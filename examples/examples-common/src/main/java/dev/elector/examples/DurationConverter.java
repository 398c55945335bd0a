package dev.elector.examples;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a positive duration flag written as Go and kubectl write them ({@code 15s}, {@code 500ms},
 * {@code 2m}, {@code 1h}, {@code 1m30s}) or in ISO-8601 ({@code PT15S}). Registered for every
 * {@link Duration} option by {@link CommandLines#create}.
 */
public final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h)");

  @Override
  public Duration convert(String text) {
    Duration parsed = parse(text);
    if (parsed.isZero() || parsed.isNegative()) {
      throw new TypeConversionException(text + " must be positive, for example 15s");
    }
    return parsed;
  }

  /**
   * Reads {@code text}, which may be zero or negative in ISO-8601.
   *
   * @throws TypeConversionException saying how to write a duration
   */
  public static Duration parse(String text) {
    String trimmed = text.trim();
    if (trimmed.startsWith("P") || trimmed.startsWith("p")) {
      try {
        return Duration.parse(trimmed);
      } catch (DateTimeParseException e) {
        throw notADuration(text);
      }
    }
    Matcher m = PART.matcher(trimmed);
    int at = 0;
    Duration sum = Duration.ZERO;
    while (at < trimmed.length() && m.find(at) && m.start() == at) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        throw notADuration(text);
      }
      sum =
          sum.plus(
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
              });
      at = m.end();
    }
    if (at == 0 || at != trimmed.length()) {
      throw notADuration(text);
    }
    return sum;
  }

  private static TypeConversionException notADuration(String text) {
    return new TypeConversionException(
        "'" + text + "' is not a duration; write it like 15s," + " 500ms, 2m, 1m30s or PT15S");
  }
}
