#!/usr/bin/env bash
# Installs Debian packages (and the libraries they need that the machine lacks) under
# target/debs/root without root: `apt-get download` and `dpkg -x`. Prints nothing; the lanes
# put target/debs/root/usr/bin (and sbin) on PATH and its library folders on LD_LIBRARY_PATH.
#
#   bash tests/scale/debs.sh PACKAGE...
#
# A package that cannot be fetched fails the lane: nothing is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=target/debs
mkdir -p "$dir/cache" "$dir/root"
for pkg in "$@"; do
  if [[ -e "$dir/cache/$pkg.done" ]]; then
    continue
  fi
  (cd "$dir/cache" && apt-get download "$pkg" >/dev/null 2>&1) ||
    { apt-get update >/dev/null 2>&1 && (cd "$dir/cache" && apt-get download "$pkg" >/dev/null); } ||
    { echo "debs: cannot fetch the Debian package $pkg" >&2; exit 1; }
  deb=$(ls -t "$dir/cache/${pkg}"_*.deb | head -1)
  dpkg -x "$deb" "$dir/root"
  touch "$dir/cache/$pkg.done"
done
