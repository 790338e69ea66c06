#!/usr/bin/env bash
# Installs every build, run and test dependency of Strata from Debian's packages.
# Non-interactive and idempotent: run it as root (or through sudo) as often as you like.
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config git
    qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6svg6 libqt6opengl6-dev libgl-dev libvulkan-dev
    libsqlite3-dev libzstd-dev libxxhash-dev libsimdjson-dev libdeflate-dev zlib1g-dev
    libopen-trace-format2-dev
    libopenmpi-dev openmpi-bin
    catch2
    fonts-dejavu-core
    file dpkg-dev
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages already installed"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
