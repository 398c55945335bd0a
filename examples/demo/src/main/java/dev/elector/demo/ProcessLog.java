package dev.elector.demo;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Follows the output file of one process on a daemon thread and hands each event line to a listener
 * as it appears; keeps every event for the summary.
 */
final class ProcessLog implements AutoCloseable {
  private final String source;
  private final Path file;
  private final Consumer<EventLine> listener;
  private final List<EventLine> events = new ArrayList<>();
  private final Thread thread;
  private volatile boolean closed;

  ProcessLog(String source, Path file, Consumer<EventLine> listener) {
    this.source = source;
    this.file = file;
    this.listener = listener;
    this.thread = new Thread(this::follow, "demo-log-" + source);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  private void follow() {
    long position = 0;
    StringBuilder partial = new StringBuilder();
    while (true) {
      boolean last = closed;
      try {
        if (Files.exists(file)) {
          try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            if (length > position) {
              byte[] bytes = new byte[(int) (length - position)];
              in.seek(position);
              in.readFully(bytes);
              position = length;
              partial.append(new String(bytes, StandardCharsets.UTF_8));
              int newline;
              while ((newline = partial.indexOf("\n")) >= 0) {
                String line = partial.substring(0, newline);
                partial.delete(0, newline + 1);
                EventLine.parse(source, line).ifPresent(this::deliver);
              }
            }
          }
        }
        if (last) {
          return;
        }
        // Following a file that another process writes: read what was appended, every 25 ms.
        Thread.sleep(25);
      } catch (IOException e) {
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void deliver(EventLine event) {
    synchronized (events) {
      events.add(event);
      events.notifyAll();
    }
    listener.accept(event);
  }

  /**
   * The first event so far or to come that matches, woken by each new event.
   *
   * @throws IOException when none came within {@code limit}
   */
  EventLine awaitFirst(Predicate<EventLine> match, Duration limit, String what)
      throws IOException, InterruptedException {
    long limitNanos = limit.toNanos();
    long waitedFrom = System.nanoTime();
    synchronized (events) {
      while (true) {
        for (EventLine e : events) {
          if (match.test(e)) {
            return e;
          }
        }
        long left = limitNanos - (System.nanoTime() - waitedFrom);
        if (left <= 0) {
          throw new IOException(
              source + " printed no " + what + " within " + limit + "; see " + file);
        }
        TimeUnit.NANOSECONDS.timedWait(events, left);
      }
    }
  }

  /** Every event so far. */
  List<EventLine> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  String source() {
    return source;
  }

  Path file() {
    return file;
  }

  /** Reads what is left, then stops following. */
  @Override
  public void close() {
    closed = true;
    try {
      thread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
