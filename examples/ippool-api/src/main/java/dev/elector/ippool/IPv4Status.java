package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The allocation table of a pool: IP -> MAC of the NIC it is allocated to, or one of the markers
 * {@link #EXCLUDED}, {@link #RESERVED} and {@link #CONFLICT}; and the used / available counts.
 */
public final class IPv4Status {
  /** Marker: the address is excluded by spec.ipv4Config.pool.exclude. */
  public static final String EXCLUDED = "EXCLUDED";

  /** Marker: the address is the pool's serverIP or router. */
  public static final String RESERVED = "RESERVED";

  /**
   * Marker: a client declined the address (DHCPDECLINE: in use on the network); it stays out of use
   * until an operator clears it.
   */
  public static final String CONFLICT = "CONFLICT";

  @SerializedName("allocated")
  private Map<String, String> allocated;

  @SerializedName("used")
  private Integer used;

  @SerializedName("available")
  private Integer available;

  /** IP -> MAC or marker; never null. */
  public Map<String, String> getAllocated() {
    return allocated == null ? Map.of() : allocated;
  }

  public IPv4Status allocated(Map<String, String> allocated) {
    this.allocated = allocated == null ? null : new LinkedHashMap<>(allocated);
    return this;
  }

  /** True when the value of an allocated entry is a marker rather than a MAC. */
  public static boolean isMarker(String value) {
    return EXCLUDED.equals(value) || RESERVED.equals(value) || CONFLICT.equals(value);
  }

  public Integer getUsed() {
    return used;
  }

  public IPv4Status used(Integer used) {
    this.used = used;
    return this;
  }

  public Integer getAvailable() {
    return available;
  }

  public IPv4Status available(Integer available) {
    this.available = available;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IPv4Status s
        && Objects.equals(getAllocated(), s.getAllocated())
        && Objects.equals(used, s.used)
        && Objects.equals(available, s.available);
  }

  @Override
  public int hashCode() {
    return Objects.hash(getAllocated(), used, available);
  }

  @Override
  public String toString() {
    return "{allocated=" + getAllocated() + ", used=" + used + ", available=" + available + "}";
  }
}
