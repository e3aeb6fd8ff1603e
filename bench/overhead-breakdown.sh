#!/usr/bin/env bash
# Where the tier-3 sandbox overhead goes: bwrap alone, then each layer
# skillhost adds (the generated /etc read from pipes, the fd-closing bash and
# env, the limits as bash ulimit builtins, and for comparison the prlimit exec
# that applied them before). 100 calls each, printed as ms per call. Run: bash bench/overhead-breakdown.sh
set -euo pipefail
base=(--unshare-all --die-with-parent --new-session --clearenv --ro-bind /usr /usr
  --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev)
t() {
  local label=$1; shift
  local s; s=$(date +%s%N)
  for _ in $(seq 1 100); do "$@" >/dev/null 2>&1; done
  awk -v ns="$(( $(date +%s%N) - s ))" -v l="$label" 'BEGIN { printf "%-44s %6.2f ms\n", l, ns / 100 / 1e6 }'
}
t 'plain /bin/true' /bin/true
t 'bwrap /bin/true' bwrap "${base[@]}" /bin/true
t 'bwrap + 4 --ro-bind-data /etc files (before)' bwrap "${base[@]}" \
  --perms 0444 --ro-bind-data 5 /etc/passwd --perms 0444 --ro-bind-data 6 /etc/group \
  --perms 0444 --ro-bind-data 7 /etc/hosts --perms 0444 --ro-bind-data 8 /etc/nsswitch.conf \
  /bin/true 5<<<a 6<<<b 7<<<c 8<<<d
t 'bwrap + 4 --file /etc files (what runs)' bwrap "${base[@]}" \
  --perms 0444 --file 5 /etc/passwd --perms 0444 --file 6 /etc/group \
  --perms 0444 --file 7 /etc/hosts --perms 0444 --file 8 /etc/nsswitch.conf --remount-ro / \
  /bin/true 5<<<a 6<<<b 7<<<c 8<<<d
t 'bwrap + bash + env (fd closer)' bwrap "${base[@]}" /usr/bin/bash -c 'exec /usr/bin/env -u SHLVL "$@"' x /bin/true
t 'bwrap + bash + env + prlimit (before)' bwrap "${base[@]}" /usr/bin/bash -c 'exec /usr/bin/env -u SHLVL "$@"' x \
  /usr/bin/prlimit --as=1000000000 -- /bin/true
t 'bwrap + bash ulimit + env (what runs)' bwrap "${base[@]}" /usr/bin/bash -c \
  'ulimit -d 1048576 -t 11 -f 65536 -n 256 -u 64 || exit 125; exec /usr/bin/env -u SHLVL "$@"' x /bin/true
