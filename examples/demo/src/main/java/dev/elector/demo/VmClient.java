package dev.elector.demo;

import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.lab.NetLab;
import dev.elector.dhcp.lab.Udhcpc;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** The VM's NIC: a namespace on the pool's network with the VM's MAC, running udhcpc. */
final class VmClient implements AutoCloseable {
  private final NetLab.Host host;
  private final Udhcpc client;

  VmClient(NetLab lab, String name, MacAddress mac, Path work) throws IOException {
    this.host = lab.addHost(name, "eth0", Optional.of(mac));
    this.client = new Udhcpc(host, work.resolve(name + "-dhcp"));
  }

  /** Boots the VM's DHCP client; it keeps its lease and renews until closed. */
  void start() throws IOException {
    client.start();
  }

  /** Asks the client to renew now (SIGUSR1), as it would at half its lease. */
  void renewNow() {
    client.renewNow();
  }

  /** Forgets a recorded event, to wait for the next one of that kind. */
  void forget(String event) throws IOException {
    client.forget(event);
  }

  /** Waits for an event ("bound", "renew") and returns its variables. */
  Map<String, String> await(String event, Duration limit) throws IOException, InterruptedException {
    return client.await(event, limit);
  }

  @Override
  public void close() {
    client.close();
    host.delete();
  }
}
