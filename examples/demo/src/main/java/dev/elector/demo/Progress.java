package dev.elector.demo;

import java.io.PrintStream;
import java.util.Locale;

/** Prints the demo's progress and timeline, each line stamped with the time since the start. */
final class Progress {
  private final PrintStream out;
  private final long startMillis;

  Progress(PrintStream out, long startMillis) {
    this.out = out;
    this.startMillis = startMillis;
  }

  long startMillis() {
    return startMillis;
  }

  /** A step of the demo itself. */
  void step(String text) {
    line(System.currentTimeMillis(), "demo", text);
  }

  /** Something a process did, at the time it did it. */
  synchronized void line(long epochMillis, String who, String text) {
    out.println(
        String.format(
            Locale.ROOT, "[+%6.2fs] %-26s %s", (epochMillis - startMillis) / 1000.0, who, text));
    out.flush();
  }

  /** Free text (tables, headings). */
  synchronized void print(String text) {
    out.println(text);
    out.flush();
  }
}
