package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The IPv4 side of a pool: subnet, server and router addresses, range and DHCP options. */
public final class IPv4Config {
  /**
   * Lease time handed out when the pool sets none: one year (365 days), upstream's, the one default
   * of the project (the agent, the DHCP server's builder and the standalone server all use it).
   * Clients renew at half of it (T1), so a changed option (DNS, NTP, the router) reaches them only
   * then: a pool whose options may change sets {@code leaseTime}, such as 86400 for a day.
   */
  public static final int DEFAULT_LEASE_TIME_SECONDS = 31_536_000;

  @SerializedName("cidr")
  private String cidr;

  @SerializedName("serverIP")
  private String serverIP;

  @SerializedName("router")
  private String router;

  @SerializedName("pool")
  private Pool pool;

  @SerializedName("dns")
  private List<String> dns;

  @SerializedName("domainName")
  private String domainName;

  @SerializedName("domainSearch")
  private List<String> domainSearch;

  @SerializedName("ntp")
  private List<String> ntp;

  @SerializedName("leaseTime")
  private Integer leaseTime;

  public String getCidr() {
    return cidr;
  }

  public IPv4Config cidr(String cidr) {
    this.cidr = cidr;
    return this;
  }

  public String getServerIP() {
    return serverIP;
  }

  public IPv4Config serverIP(String serverIP) {
    this.serverIP = serverIP;
    return this;
  }

  public String getRouter() {
    return router;
  }

  public IPv4Config router(String router) {
    this.router = router;
    return this;
  }

  public Pool getPool() {
    return pool;
  }

  public IPv4Config pool(Pool pool) {
    this.pool = pool;
    return this;
  }

  /** DNS servers (at most 3); never null. */
  public List<String> getDns() {
    return dns == null ? List.of() : dns;
  }

  public IPv4Config dns(List<String> dns) {
    this.dns = dns == null ? null : new ArrayList<>(dns);
    return this;
  }

  public String getDomainName() {
    return domainName;
  }

  public IPv4Config domainName(String domainName) {
    this.domainName = domainName;
    return this;
  }

  /** Domain search list; never null. */
  public List<String> getDomainSearch() {
    return domainSearch == null ? List.of() : domainSearch;
  }

  public IPv4Config domainSearch(List<String> domainSearch) {
    this.domainSearch = domainSearch == null ? null : new ArrayList<>(domainSearch);
    return this;
  }

  /** NTP servers (at most 4); never null. */
  public List<String> getNtp() {
    return ntp == null ? List.of() : ntp;
  }

  public IPv4Config ntp(List<String> ntp) {
    this.ntp = ntp == null ? null : new ArrayList<>(ntp);
    return this;
  }

  /** Lease time in seconds as written, or null when the pool sets none. */
  public Integer getLeaseTime() {
    return leaseTime;
  }

  /** Lease time in seconds, {@link #DEFAULT_LEASE_TIME_SECONDS} when the pool sets none. */
  public int leaseTimeOrDefault() {
    return leaseTime == null ? DEFAULT_LEASE_TIME_SECONDS : leaseTime;
  }

  public IPv4Config leaseTime(Integer leaseTime) {
    this.leaseTime = leaseTime;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IPv4Config c
        && Objects.equals(cidr, c.cidr)
        && Objects.equals(serverIP, c.serverIP)
        && Objects.equals(router, c.router)
        && Objects.equals(pool, c.pool)
        && Objects.equals(getDns(), c.getDns())
        && Objects.equals(domainName, c.domainName)
        && Objects.equals(getDomainSearch(), c.getDomainSearch())
        && Objects.equals(getNtp(), c.getNtp())
        && Objects.equals(leaseTime, c.leaseTime);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        cidr, serverIP, router, pool, getDns(), domainName, getDomainSearch(), getNtp(), leaseTime);
  }

  @Override
  public String toString() {
    return "{cidr="
        + cidr
        + ", serverIP="
        + serverIP
        + ", router="
        + router
        + ", pool="
        + pool
        + ", dns="
        + getDns()
        + ", domainName="
        + domainName
        + ", domainSearch="
        + getDomainSearch()
        + ", ntp="
        + getNtp()
        + ", leaseTime="
        + leaseTime
        + "}";
  }
}
