#!/usr/bin/env bash
# Installs what the dhcp-agent-example end-to-end tests and the demo's network lab need: the real
# DHCP client (busybox udhcpc), tcpdump, socat (carries the API server into network namespaces),
# arping (gratuitous ARP when the server address moves) and curl (health endpoints inside a
# namespace). Idempotent: does nothing when everything is already present.
set -euo pipefail

have_udhcpc() {
  command -v udhcpc >/dev/null 2>&1 || { command -v busybox >/dev/null 2>&1 && busybox --list | grep -qx udhcpc; }
}

need=()
have_udhcpc || need+=(udhcpc)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v tcpdump >/dev/null 2>&1 || need+=(tcpdump)
command -v socat >/dev/null 2>&1 || need+=(socat)
command -v arping >/dev/null 2>&1 || need+=(iputils-arping)
command -v curl >/dev/null 2>&1 || need+=(curl)

if [ "${#need[@]}" -eq 0 ]; then
  echo "install-dhcp-client: udhcpc, ip, tcpdump, socat, arping and curl already present"
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
