package dev.elector.controller;

import com.google.gson.GsonBuilder;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPv4Status;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The controller's side of upstream's {@code --enable-cache-dump-api}, read from the informer
 * cache: {@code /ipams}, per network, every address of the pool's table with whether it is taken;
 * {@code /caches}, per network, MAC to address. Upstream serves one network per path ({@code
 * /ipams/NETWORK}); here one document holds them all.
 */
final class CacheDump {
  private CacheDump() {}

  /** Network to (address to "allocated", "excluded", "reserved" or "conflict"). */
  static String ipams(ClusterCache cache) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    for (IPPool pool : cache.allPools()) {
      IPv4Status ipv4 = pool.getStatus() == null ? null : pool.getStatus().getIpv4();
      if (ipv4 == null || pool.getSpec() == null) {
        continue;
      }
      Map<String, String> table = new LinkedHashMap<>();
      ipv4.getAllocated()
          .forEach(
              (ip, holder) ->
                  table.put(
                      ip,
                      IPv4Status.isMarker(holder)
                          ? holder.toLowerCase(java.util.Locale.ROOT)
                          : "allocated"));
      out.put(pool.getSpec().getNetworkName(), table);
    }
    return json(out);
  }

  /** Network to (MAC to address). */
  static String caches(ClusterCache cache) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    for (IPPool pool : cache.allPools()) {
      IPv4Status ipv4 = pool.getStatus() == null ? null : pool.getStatus().getIpv4();
      if (ipv4 == null || pool.getSpec() == null) {
        continue;
      }
      Map<String, String> macs = new TreeMap<>();
      ipv4.getAllocated()
          .forEach(
              (ip, holder) -> {
                if (!IPv4Status.isMarker(holder)) {
                  macs.put(holder, ip);
                }
              });
      out.put(pool.getSpec().getNetworkName(), macs);
    }
    return json(out);
  }

  private static String json(Object o) {
    return new GsonBuilder().setPrettyPrinting().create().toJson(o) + "\n";
  }
}
