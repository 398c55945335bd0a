package dev.elector.dhcp.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.server.Ipv4Cidr;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ServerAddressTest {
  private final List<String> ran = new ArrayList<>();

  private ServerAddress address(Function<List<String>, ServerAddress.Result> answer) {
    return ServerAddress.onInterface(
        "net1",
        Ipv4Address.parse("192.0.2.1"),
        Ipv4Cidr.parse("192.0.2.0/24"),
        command -> {
          ran.add(String.join(" ", command));
          return answer.apply(command);
        },
        Runnable::run);
  }

  @Test
  void addsTheAddressWithThePoolsPrefixThenAnnouncesIt() throws IOException {
    address(c -> new ServerAddress.Result(0, "")).add();

    assertEquals(
        List.of("ip addr replace 192.0.2.1/24 dev net1", "arping -U -c 1 -I net1 192.0.2.1"), ran);
  }

  @Test
  void removesIt() {
    address(c -> new ServerAddress.Result(0, "")).remove();

    assertEquals(List.of("ip addr del 192.0.2.1/24 dev net1"), ran);
  }

  @Test
  void aFailedAddNamesTheCommandAndTheMissingCapability() {
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                address(
                        c ->
                            new ServerAddress.Result(
                                2, "RTNETLINK answers: Operation not permitted"))
                    .add());

    assertTrue(
        e.getMessage().contains("'ip addr replace 192.0.2.1/24 dev net1' failed (exit 2)"),
        e.getMessage());
    assertTrue(e.getMessage().contains("needs the NET_ADMIN capability"), e.getMessage());
    assertEquals(1, ran.size(), "nothing announced after a failed add");
  }

  @Test
  void aMissingInterfaceIsNamed() {
    IOException e =
        assertThrows(
            IOException.class,
            () -> address(c -> new ServerAddress.Result(1, "Cannot find device \"net1\"")).add());

    assertTrue(e.getMessage().contains("the interface net1 does not exist"), e.getMessage());
  }

  @Test
  void aMissingArpingDoesNotFailTheAdd() throws IOException {
    List<Runnable> announcements = new ArrayList<>();
    ServerAddress noArping =
        ServerAddress.onInterface(
            "net1",
            Ipv4Address.parse("192.0.2.1"),
            Ipv4Cidr.parse("192.0.2.0/24"),
            command -> {
              ran.add(String.join(" ", command));
              if (command.get(0).equals("arping")) {
                throw new IOException("Cannot run program \"arping\"");
              }
              return new ServerAddress.Result(0, "");
            },
            announcements::add);

    noArping.add();
    assertEquals(
        List.of("ip addr replace 192.0.2.1/24 dev net1"),
        ran,
        "the address is in place before the announcement runs");
    assertEquals(1, announcements.size(), "the announcement is handed to the announcer");

    announcements.get(0).run(); // arping cannot be started: the announcement gives up quietly

    assertEquals(
        List.of("ip addr replace 192.0.2.1/24 dev net1", "arping -U -c 1 -I net1 192.0.2.1"), ran);
    noArping.remove();
    assertEquals("ip addr del 192.0.2.1/24 dev net1", ran.get(2), "the address stays usable");
  }

  @Test
  void theDryRunAddressNeverRunsAnything() throws IOException {
    ServerAddress none = ServerAddress.none();
    none.add();
    none.remove();

    assertEquals(List.of(), ran);
    assertTrue(none.describe().contains("dry run"));
  }
}
