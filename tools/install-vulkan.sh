#!/usr/bin/env bash
# Install what `wgc run` needs from the distribution's own archive: the Vulkan loader (libvulkan1) and
# Mesa's drivers (mesa-vulkan-drivers: lavapipe, a CPU device).  Graphs that draw with mesh nodes need
# VK_EXT_mesh_shader, which lavapipe has from Mesa 23.2: Debian 13 and current Ubuntu ship such a Mesa;
# on Debian 12 (Mesa 22.3) this adds Debian's own bookworm-backports suite (same mirror, same keyring)
# and installs mesa-vulkan-drivers from it.  Run as root (CI) or with sudo.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
. /etc/os-release
if [ "${ID:-}" = debian ] && [ "${VERSION_CODENAME:-}" = bookworm ]; then
    list=/etc/apt/sources.list.d/wgc-bookworm-backports.sources
    if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
        # the mirror the system already uses for bookworm
        mirror=$(grep -rhs -m1 -oE 'https?://[^ ]+/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/ | head -n1)
        mirror=${mirror:-http://deb.debian.org/debian}
        printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: %s\n' \
            "$mirror" /usr/share/keyrings/debian-archive-keyring.gpg | $SUDO tee "$list" >/dev/null
    fi
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq libvulkan1
    $SUDO apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers
else
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq libvulkan1 mesa-vulkan-drivers
fi
