package dev.elector.quarkus.internal;

import dev.elector.kube.LockKind;
import java.util.Locale;
import org.eclipse.microprofile.config.spi.Converter;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code quarkus.elector.lock-kind}: {@code lease} or {@code configmap}, in any case and with
 * any '-' or '_' between the letters ({@code config-map} too), as Spring's {@code
 * elector.lock-kind} reads them.
 */
public final class LockKindConverter implements Converter<LockKind> {
  private static final long serialVersionUID = 1L;

  /** For SmallRye Config. */
  public LockKindConverter() {}

  @Override
  public @Nullable LockKind convert(String value) {
    StringBuilder letters = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isLetterOrDigit(c)) {
        letters.append(c);
      } else if (c != '-' && c != '_' && !Character.isWhitespace(c)) {
        letters.append('?');
      }
    }
    String canonical = letters.toString().toLowerCase(Locale.ROOT);
    switch (canonical) {
      case "":
        return null;
      case "lease":
        return LockKind.LEASE;
      case "configmap":
        return LockKind.CONFIG_MAP;
      default:
        throw new IllegalArgumentException(
            "\""
                + value
                + "\" is not a lock kind; use lease or configmap (config-map is accepted too)");
    }
  }
}
