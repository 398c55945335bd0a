package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.DhcpOptions;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.ippool.IPv4Config;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The settings of an IPPool's {@code spec.ipv4Config} that the server hands out: server identifier,
 * subnet, router, DNS (at most 3), domain name, domain search list, NTP (at most 4) and lease time.
 *
 * <p>Immutable; {@link Builder#build()} checks every field and reports all violations at once.
 */
public final class PoolOptions {
  /** The most DNS servers an IPPool may list. */
  public static final int MAX_DNS = 3;

  /** The most NTP servers an IPPool may list. */
  public static final int MAX_NTP = 4;

  /** The default lease time when none is set: the project's one default, one year. */
  public static final Duration DEFAULT_LEASE_TIME =
      Duration.ofSeconds(IPv4Config.DEFAULT_LEASE_TIME_SECONDS);

  private static final long MAX_LEASE_SECONDS = 0xfffffffeL;

  private final Ipv4Address serverIp;
  private final Ipv4Cidr cidr;
  private final Optional<Ipv4Address> router;
  private final List<Ipv4Address> dns;
  private final Optional<String> domainName;
  private final List<String> domainSearch;
  private final List<Ipv4Address> ntp;
  private final Duration leaseTime;

  private PoolOptions(Builder b) {
    this.serverIp = b.serverIp;
    this.cidr = b.cidr;
    this.router = Optional.ofNullable(b.router);
    this.dns = List.copyOf(b.dns);
    this.domainName = Optional.ofNullable(b.domainName);
    this.domainSearch = List.copyOf(b.domainSearch);
    this.ntp = List.copyOf(b.ntp);
    this.leaseTime = b.leaseTime;
  }

  /**
   * Returns an empty builder; serverIp and cidr are required, the lease time defaults to one year.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the server identifier (option 54) and the source of replies. */
  public Ipv4Address serverIp() {
    return serverIp;
  }

  public Ipv4Cidr cidr() {
    return cidr;
  }

  /** Returns the subnet mask (option 1) derived from the CIDR. */
  public Ipv4Address subnetMask() {
    return cidr.subnetMask();
  }

  public Optional<Ipv4Address> router() {
    return router;
  }

  public List<Ipv4Address> dns() {
    return dns;
  }

  public Optional<String> domainName() {
    return domainName;
  }

  public List<String> domainSearch() {
    return domainSearch;
  }

  public List<Ipv4Address> ntp() {
    return ntp;
  }

  /** Returns the lease time, whole seconds. */
  public Duration leaseTime() {
    return leaseTime;
  }

  /** Returns a builder holding these settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.serverIp = serverIp;
    b.cidr = cidr;
    b.router = router.orElse(null);
    b.dns = dns;
    b.domainName = domainName.orElse(null);
    b.domainSearch = domainSearch;
    b.ntp = ntp;
    b.leaseTime = leaseTime;
    return b;
  }

  @Override
  public String toString() {
    return "PoolOptions{serverIp="
        + serverIp
        + ", cidr="
        + cidr
        + ", router="
        + router.map(String::valueOf).orElse("-")
        + ", dns="
        + dns
        + ", domainName="
        + domainName.orElse("-")
        + ", domainSearch="
        + domainSearch
        + ", ntp="
        + ntp
        + ", leaseTime="
        + leaseTime
        + "}";
  }

  /** Collects settings; setters reject null, {@link #build()} checks the rest. */
  public static final class Builder {
    private Ipv4Address serverIp;
    private Ipv4Cidr cidr;
    private Ipv4Address router;
    private List<Ipv4Address> dns = List.of();
    private String domainName;
    private List<String> domainSearch = List.of();
    private List<Ipv4Address> ntp = List.of();
    private Duration leaseTime = DEFAULT_LEASE_TIME;

    private Builder() {}

    public Builder serverIp(Ipv4Address serverIp) {
      this.serverIp = Objects.requireNonNull(serverIp, "serverIp");
      return this;
    }

    public Builder cidr(Ipv4Cidr cidr) {
      this.cidr = Objects.requireNonNull(cidr, "cidr");
      return this;
    }

    public Builder router(Ipv4Address router) {
      this.router = Objects.requireNonNull(router, "router");
      return this;
    }

    public Builder dns(List<Ipv4Address> dns) {
      this.dns = List.copyOf(dns);
      return this;
    }

    public Builder domainName(String domainName) {
      this.domainName = Objects.requireNonNull(domainName, "domainName");
      return this;
    }

    public Builder domainSearch(List<String> domainSearch) {
      this.domainSearch = List.copyOf(domainSearch);
      return this;
    }

    public Builder ntp(List<Ipv4Address> ntp) {
      this.ntp = List.copyOf(ntp);
      return this;
    }

    /** Sets the lease time: whole seconds, 1 s to 4294967294 s. */
    public Builder leaseTime(Duration leaseTime) {
      this.leaseTime = Objects.requireNonNull(leaseTime, "leaseTime");
      return this;
    }

    /**
     * Returns the settings.
     *
     * @throws IllegalArgumentException listing every violated rule
     */
    public PoolOptions build() {
      List<String> violations = new ArrayList<>();
      if (serverIp == null) {
        violations.add("serverIp is required; set the pool's server address");
      }
      if (cidr == null) {
        violations.add("cidr is required; set the pool's network, e.g. 192.0.2.0/24");
      }
      if (serverIp != null && cidr != null && !cidr.contains(serverIp)) {
        violations.add(
            "serverIp " + serverIp + " is outside cidr " + cidr + "; pick an address inside it");
      }
      if (router != null && cidr != null && !cidr.contains(router)) {
        violations.add(
            "router " + router + " is outside cidr " + cidr + "; pick an address inside it");
      }
      if (dns.size() > MAX_DNS) {
        violations.add("dns lists " + dns.size() + " servers; at most " + MAX_DNS + " are allowed");
      }
      if (ntp.size() > MAX_NTP) {
        violations.add("ntp lists " + ntp.size() + " servers; at most " + MAX_NTP + " are allowed");
      }
      if (leaseTime.isNegative()
          || leaseTime.isZero()
          || leaseTime.getNano() != 0
          || leaseTime.getSeconds() > MAX_LEASE_SECONDS) {
        violations.add(
            "leaseTime "
                + leaseTime
                + " must be whole seconds within 1-"
                + MAX_LEASE_SECONDS
                + " s");
      }
      if (domainName != null) {
        check(violations, () -> DhcpOptions.builder().domainName(domainName));
      }
      if (!domainSearch.isEmpty()) {
        check(violations, () -> DhcpOptions.builder().domainSearch(domainSearch));
      }
      if (!violations.isEmpty()) {
        throw new IllegalArgumentException(
            "invalid pool options: " + String.join("; ", violations));
      }
      return new PoolOptions(this);
    }

    private static void check(List<String> violations, Runnable rule) {
      try {
        rule.run();
      } catch (IllegalArgumentException e) {
        violations.add(e.getMessage());
      }
    }
  }
}
