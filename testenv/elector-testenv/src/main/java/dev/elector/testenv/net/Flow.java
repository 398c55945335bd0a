package dev.elector.testenv.net;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One direction of a proxied connection: bytes read from {@code source} wait in a FIFO queue until
 * their due time, then go to {@code sink}. The queue keeps byte order whatever the delays; it is
 * bounded, so a slow or blackholed sink pushes back on the source through TCP.
 *
 * <p>Used only on the proxy's loop thread.
 */
final class Flow {
  static final int CHUNK = 16 * 1024;
  private static final int MAX_QUEUED = 1024 * 1024;

  /** Trickled bytes go out in pieces of at most 1/20 s worth, so the rate holds at a fine grain. */
  private static final int SLICES_PER_SECOND = 20;

  private record Chunk(ByteBuffer data, long dueNanos) {}

  private final ArrayDeque<Chunk> queue = new ArrayDeque<>();
  private final AtomicLong forwarded;
  private @Nullable SocketChannel source;
  private @Nullable SocketChannel sink;
  private long queuedBytes;
  private boolean sourceEnded;
  private boolean sinkShut;
  private boolean sinkFull;
  private long nextWriteNanos;

  Flow(AtomicLong forwarded, long nowNanos) {
    this.forwarded = forwarded;
    this.nextWriteNanos = nowNanos;
  }

  void connect(SocketChannel from, SocketChannel to) {
    this.source = from;
    this.sink = to;
  }

  boolean wantsRead(Faults faults) {
    long limit = faults.bytesPerSecond() > 0 ? 2L * slice(faults) : MAX_QUEUED;
    return source != null && !sourceEnded && !faults.blackhole() && queuedBytes < limit;
  }

  /** True while the sink's send buffer is full and the flow waits for it to drain. */
  boolean wantsWrite() {
    return sinkFull;
  }

  void sinkWritable() {
    sinkFull = false;
  }

  /**
   * Reads what the source has into the queue, due after the configured latency.
   *
   * @return false if the chunk read should reset the connection instead
   */
  boolean read(Faults faults, long nowNanos, SplittableRandom random) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(faults.bytesPerSecond() > 0 ? slice(faults) : CHUNK);
    SocketChannel from = source;
    if (from == null) {
      return true; // not connected yet: wantsRead() is false until then
    }
    int n = from.read(buffer);
    if (n < 0) {
      sourceEnded = true;
      return true;
    }
    if (n == 0) {
      return true;
    }
    if (faults.resetProbability() > 0 && random.nextDouble() < faults.resetProbability()) {
      return false;
    }
    buffer.flip();
    long jitter = faults.jitterNanos() > 0 ? random.nextLong(faults.jitterNanos() + 1) : 0;
    queue.add(new Chunk(buffer, nowNanos + faults.delayNanos() + jitter));
    queuedBytes += n;
    return true;
  }

  /**
   * Writes every chunk that is due, as far as the rate limit and the sink allow; after the source
   * ended and the queue drained, half-closes the sink.
   *
   * @return the next time this flow has something to write, or {@link Long#MAX_VALUE}
   */
  long flush(Faults faults, long nowNanos) throws IOException {
    if (faults.blackhole() || sinkFull || sink == null) {
      return Long.MAX_VALUE;
    }
    long rate = faults.bytesPerSecond();
    while (!queue.isEmpty()) {
      Chunk head = queue.peek();
      if (head.dueNanos() - nowNanos > 0) {
        return head.dueNanos();
      }
      if (rate > 0 && nextWriteNanos - nowNanos > 0) {
        return nextWriteNanos;
      }
      ByteBuffer data = head.data();
      int attempt = rate > 0 ? Math.min(data.remaining(), slice(faults)) : data.remaining();
      ByteBuffer piece = data.slice();
      piece.limit(attempt);
      forwarded.addAndGet(attempt); // counted before the peer can see them; corrected below
      int written = sink.write(piece);
      forwarded.addAndGet(written - attempt);
      data.position(data.position() + written);
      queuedBytes -= written;
      if (rate > 0) {
        nextWriteNanos = Math.max(nowNanos, nextWriteNanos) + written * 1_000_000_000L / rate;
      }
      if (!data.hasRemaining()) {
        queue.poll();
      }
      if (written < attempt) {
        sinkFull = true;
        return Long.MAX_VALUE;
      }
    }
    if (sourceEnded && !sinkShut) {
      sink.shutdownOutput();
      sinkShut = true;
    }
    return Long.MAX_VALUE;
  }

  /** True once the source ended and everything it sent reached the sink. */
  boolean finished() {
    return sinkShut;
  }

  private static int slice(Faults faults) {
    return (int) Math.max(1, Math.min(CHUNK, faults.bytesPerSecond() / SLICES_PER_SECOND));
  }
}
