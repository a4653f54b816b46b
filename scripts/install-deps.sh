#!/usr/bin/env bash
# Installs the Debian packages listd needs to build, test and benchmark, skipping those already
# present. Debian 12; run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake pkg-config libssl-dev openssl
  libasio-dev liburing-dev libfmt-dev libspdlog-dev libgtest-dev libhiredis-dev
  liblua5.1-0-dev lua-cjson-dev lua-bitop-dev
  redis-server redis-tools python3 python3-redis python3-pytest
  procps util-linux tmux fiu-utils clang-format clang
  python3-celery python3-rq python3-limits ruby-sidekiq ruby-redis valgrind
  prometheus-redis-exporter prometheus chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# Node and npm for the Node frameworks' tests (tests/frameworks/node): Debian's nodejs and npm,
# unless a node and npm are already on the PATH (e.g. NodeSource's nodejs, which ships npm and
# conflicts with Debian's npm package).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if ((${#missing[@]})); then
  echo "Installing missing packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Debian's redis-server package may start a system instance on 6379; listd's tests never use
# that port, but `make run` does: stop it if it is running.
if command -v service >/dev/null 2>&1 && pgrep -x redis-server >/dev/null 2>&1; then
  service redis-server stop >/dev/null 2>&1 || true
fi
