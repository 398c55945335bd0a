#!/usr/bin/env bash
# Installs the real DHCP client (busybox udhcpc) and tcpdump used by the dhcp-agent-example
# end-to-end test (DhcpRealClientIT). Idempotent: does nothing when both are already present.
set -euo pipefail

have_udhcpc() {
  command -v udhcpc >/dev/null 2>&1 || { command -v busybox >/dev/null 2>&1 && busybox --list | grep -qx udhcpc; }
}

need=()
have_udhcpc || need+=(udhcpc)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v tcpdump >/dev/null 2>&1 || need+=(tcpdump)

if [ "${#need[@]}" -eq 0 ]; then
  echo "install-dhcp-client: udhcpc, ip and tcpdump already present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-dhcp-client: need root to install ${need[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "install-dhcp-client: installed ${need[*]}"
