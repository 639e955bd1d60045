# Sourced by the scale lanes: the Debian programs of target/debs/root on PATH, their libraries
# found.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/target/debs/root"
export PATH="$root/usr/bin:$root/usr/sbin:$PATH"
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
