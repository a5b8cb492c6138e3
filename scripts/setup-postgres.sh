#!/usr/bin/env bash
# Installs Debian's PostgreSQL server, idempotently, for the team-store tests (they start one of
# their own on a temporary data folder and a free port; the package's own cluster is never used).
# Prints the folder of its programs (initdb, pg_ctl, postgres) on its last line.
set -euo pipefail
log() { echo "[setup-postgres] $*" >&2; }

# The newest version folder that has the server's programs (a client-only package has none).
find_bin() {
  local found=""
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
    [ -x "$dir/initdb" ] && found="$dir"
  done
  echo "$found"
}

if [ -z "$(find_bin)" ] || [ ! -x "$(find_bin)/initdb" ]; then
  [ "$(id -u)" = 0 ] || { log "need root to apt-get install postgresql"; exit 1; }
  log "apt: postgresql"
  apt-get update -qq
  # The package's own cluster is not wanted: the tests make theirs.
  mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/retained-outputs.conf
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
bin="$(find_bin)"
[ -x "$bin/initdb" ] || { log "no initdb under /usr/lib/postgresql"; exit 1; }
log "ready: $bin"
echo "$bin"
