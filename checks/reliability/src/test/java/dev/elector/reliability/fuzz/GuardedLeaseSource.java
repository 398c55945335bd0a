package dev.elector.reliability.fuzz;

import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.server.Lease;
import dev.elector.dhcp.server.LeaseSource;
import dev.elector.dhcp.server.PoolOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A strict wrapper of a lease source for one request at a time: it fails at once (with an {@link
 * AssertionError}, which nothing in the engine catches) if the engine asks for the lease of any MAC
 * other than the requester's, or calls a method twice for one request, as {@link LeaseSource}
 * promises it never does.
 */
final class GuardedLeaseSource implements LeaseSource {
  private final LeaseSource delegate;
  private final List<String> calls = new ArrayList<>();
  private Optional<MacAddress> requester = Optional.empty();

  GuardedLeaseSource(LeaseSource delegate) {
    this.delegate = delegate;
  }

  /** Starts a new request from {@code mac} (empty when the request carries no Ethernet MAC). */
  void expectRequestFrom(Optional<MacAddress> mac) {
    requester = mac;
    calls.clear();
  }

  @Override
  public Optional<Lease> leaseFor(MacAddress mac) {
    record("leaseFor");
    if (requester.isEmpty() || !requester.get().equals(mac)) {
      throw new AssertionError(
          "the engine asked for the lease of "
              + mac
              + " while answering "
              + requester.map(String::valueOf).orElse("a request without a MAC"));
    }
    return delegate.leaseFor(mac);
  }

  @Override
  public PoolOptions options() {
    record("options");
    return delegate.options();
  }

  /** Returns the calls of the current request. */
  List<String> calls() {
    return List.copyOf(calls);
  }

  private void record(String call) {
    if (calls.contains(call)) {
      throw new AssertionError(
          "the engine called " + call + " twice for one request; calls so far: " + calls);
    }
    calls.add(call);
  }
}
