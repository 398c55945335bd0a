package dev.elector.ippool;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A reference to one IPPool, written "namespace/name" (as in {@code --ippool-ref} and IPPOOL_REF).
 *
 * @param namespace the pool's namespace
 * @param name the pool's name
 */
public record IPPoolRef(String namespace, String name) {
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");

  /** Validates both parts. */
  public IPPoolRef {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    if (!DNS_LABEL.matcher(namespace).matches()) {
      throw new IllegalArgumentException(
          "IPPool reference: namespace '"
              + namespace
              + "' is not a valid namespace name (lower-case letters, digits and '-', at most 63)");
    }
    if (!DNS_SUBDOMAIN.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "IPPool reference: name '"
              + name
              + "' is not a valid object name (lower-case letters, digits, '-' and '.')");
    }
  }

  /**
   * Parses "namespace/name".
   *
   * @throws IllegalArgumentException naming what is wrong and the expected form
   */
  public static IPPoolRef parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "IPPool reference is missing: pass --ippool-ref NAMESPACE/NAME or set IPPOOL_REF");
    }
    String trimmed = text.trim();
    int slash = trimmed.indexOf('/');
    if (slash <= 0 || slash == trimmed.length() - 1 || trimmed.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException(
          "IPPool reference '"
              + text
              + "' is not of the form NAMESPACE/NAME, for example default/net-48");
    }
    return new IPPoolRef(trimmed.substring(0, slash), trimmed.substring(slash + 1));
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
