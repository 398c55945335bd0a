package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.MacAddress;
import java.util.Optional;

/**
 * Where the engine looks up who gets which address. Read-only: the engine never changes a lease,
 * whatever a client sends (RELEASE and DECLINE are only reported).
 *
 * <p>Implementations must be safe to call from several threads at once and should answer from
 * memory; the engine calls each method at most once per request.
 */
public interface LeaseSource {

  /** Returns the lease of {@code mac}, or empty if the pool does not know the client. */
  Optional<Lease> leaseFor(MacAddress mac);

  /** Returns the pool settings that go into replies. */
  PoolOptions options();
}
