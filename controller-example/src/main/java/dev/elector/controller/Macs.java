package dev.elector.controller;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/** MAC addresses: six hex pairs separated by ':' or '-', normalised to lower case with ':'. */
final class Macs {
  private static final Pattern MAC =
      Pattern.compile("[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\\1[0-9a-fA-F]{2}){4}");

  private Macs() {}

  /** The normalised form of {@code text}, if it is a MAC address. */
  static Optional<String> normalise(String text) {
    if (text == null || !MAC.matcher(text.trim()).matches()) {
      return Optional.empty();
    }
    return Optional.of(text.trim().replace('-', ':').toLowerCase(Locale.ROOT));
  }
}
