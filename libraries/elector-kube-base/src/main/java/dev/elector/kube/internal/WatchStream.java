package dev.elector.kube.internal;

import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** One watch request and its stream of events; implemented per client. */
public interface WatchStream extends AutoCloseable {
  /** Sends the request; null when the server answered 2xx, else its answer read whole. */
  @Nullable Reply open() throws Exception;

  /** The next event, parsed; null at the end of the stream. An unreadable line is an empty map. */
  @Nullable Map<String, Object> next() throws Exception;

  /** Aborts the request from any thread; {@link #open} and {@link #next} then fail or end. */
  void cancel();

  @Override
  void close();

  /** Reads a watch response line by line; null at the end. */
  @FunctionalInterface
  interface LineReader {
    /** The next line without its end, or null at the end of the stream. */
    @Nullable String readLine() throws Exception;
  }

  /**
   * The next event of a watch response, one JSON object a line: blank lines are skipped, an
   * unreadable line is an empty map, null is the end of the stream.
   *
   * @param parse the text as a JSON object, or null when it is none
   */
  static @Nullable Map<String, Object> nextEvent(
      LineReader lines, Function<String, @Nullable Map<String, Object>> parse) throws Exception {
    String line;
    do {
      line = lines.readLine();
      if (line == null) {
        return null;
      }
    } while (line.isBlank());
    Map<String, Object> event = parse.apply(line);
    return event == null ? Map.of() : event;
  }
}
