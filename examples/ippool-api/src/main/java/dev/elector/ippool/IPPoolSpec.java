package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.util.Objects;

/** What an IPPool serves: its network, whether it is paused, and its IPv4 configuration. */
public final class IPPoolSpec {
  @SerializedName("networkName")
  private String networkName;

  @SerializedName("paused")
  private Boolean paused;

  @SerializedName("ipv4Config")
  private IPv4Config ipv4Config;

  /** The NetworkAttachmentDefinition, "namespace/name"; immutable. */
  public String getNetworkName() {
    return networkName;
  }

  public IPPoolSpec networkName(String networkName) {
    this.networkName = networkName;
    return this;
  }

  public Boolean getPaused() {
    return paused;
  }

  /** True when the pool is paused (an absent field means not paused). */
  public boolean isPaused() {
    return Boolean.TRUE.equals(paused);
  }

  public IPPoolSpec paused(Boolean paused) {
    this.paused = paused;
    return this;
  }

  public IPv4Config getIpv4Config() {
    return ipv4Config;
  }

  public IPPoolSpec ipv4Config(IPv4Config ipv4Config) {
    this.ipv4Config = ipv4Config;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IPPoolSpec s
        && Objects.equals(networkName, s.networkName)
        && Objects.equals(paused, s.paused)
        && Objects.equals(ipv4Config, s.ipv4Config);
  }

  @Override
  public int hashCode() {
    return Objects.hash(networkName, paused, ipv4Config);
  }

  @Override
  public String toString() {
    return "{networkName="
        + networkName
        + ", paused="
        + paused
        + ", ipv4Config="
        + ipv4Config
        + "}";
  }
}
