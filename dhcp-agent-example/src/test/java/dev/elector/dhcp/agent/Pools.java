package dev.elector.dhcp.agent;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPPoolStatus;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.Pool;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;
import java.util.Map;

/** IPPools for tests: 192.0.2.0/24, server .1, router .254, range .10-.99. */
final class Pools {
  private Pools() {}

  static IPv4Config config() {
    return new IPv4Config()
        .cidr("192.0.2.0/24")
        .serverIP("192.0.2.1")
        .router("192.0.2.254")
        .pool(new Pool().start("192.0.2.10").end("192.0.2.99"))
        .dns(List.of("192.0.2.53"))
        .domainName("example.test")
        .domainSearch(List.of("example.test"))
        .ntp(List.of("192.0.2.123"))
        .leaseTime(600);
  }

  static IPPool pool(String version, IPv4Config config, Map<String, String> allocated) {
    return new IPPool()
        .metadata(new V1ObjectMeta().namespace("default").name("net-48").resourceVersion(version))
        .spec(new IPPoolSpec().networkName("default/net-48").ipv4Config(config))
        .status(new IPPoolStatus().ipv4(new IPv4Status().allocated(allocated)));
  }

  static IPPool pool(String version, Map<String, String> allocated) {
    return pool(version, config(), allocated);
  }
}
