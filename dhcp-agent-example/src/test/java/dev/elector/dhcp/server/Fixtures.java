package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.DhcpOptions;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.codec.MessageType;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The pool and requests engine and server tests share. */
final class Fixtures {
  static final Ipv4Address SERVER = ip("192.0.2.1");
  static final MacAddress KNOWN = MacAddress.parse("52:54:00:00:00:0a");
  static final Ipv4Address KNOWN_IP = ip("192.0.2.10");
  static final MacAddress OTHER = MacAddress.parse("52:54:00:00:00:0b");
  static final Ipv4Address OTHER_IP = ip("192.0.2.11");
  static final MacAddress STRANGER = MacAddress.parse("52:54:00:ff:ff:ff");

  static final PoolOptions POOL =
      PoolOptions.builder()
          .serverIp(SERVER)
          .cidr(Ipv4Cidr.parse("192.0.2.0/24"))
          .router(ip("192.0.2.254"))
          .dns(List.of(ip("192.0.2.53"), ip("192.0.2.54")))
          .domainName("example.test")
          .domainSearch(List.of("example.test", "lab.example.test"))
          .ntp(List.of(ip("192.0.2.123")))
          .leaseTime(Duration.ofSeconds(3600))
          .build();

  static final StaticLeaseSource LEASES =
      StaticLeaseSource.of(POOL, Map.of(KNOWN, KNOWN_IP, OTHER, OTHER_IP));

  private Fixtures() {}

  static Ipv4Address ip(String text) {
    return Ipv4Address.parse(text);
  }

  /** A request of {@code type} from {@code mac} with xid 0x0a0b0c0d and the given options added. */
  static DhcpMessage.Builder request(
      MacAddress mac, MessageType type, DhcpOptions.Builder options) {
    return DhcpMessage.builder()
        .mac(mac)
        .xid(0x0a0b0c0d)
        .options(options.messageType(type).build());
  }

  static DhcpMessage.Builder request(MacAddress mac, MessageType type) {
    return request(mac, type, DhcpOptions.builder());
  }
}
