package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.MacAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** Delegates to an immutable source and records every call, so tests can see it was only read. */
final class RecordingLeaseSource implements LeaseSource {
  private final LeaseSource delegate;
  private final List<String> calls = new CopyOnWriteArrayList<>();

  RecordingLeaseSource(LeaseSource delegate) {
    this.delegate = delegate;
  }

  @Override
  public Optional<Lease> leaseFor(MacAddress mac) {
    calls.add("leaseFor " + mac);
    return delegate.leaseFor(mac);
  }

  @Override
  public PoolOptions options() {
    calls.add("options");
    return delegate.options();
  }

  List<String> calls() {
    return List.copyOf(calls);
  }
}
