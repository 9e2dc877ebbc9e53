#!/usr/bin/env bash
set -euo pipefail

log() {
  echo "[release] $*" >&2
}

build_all() {
  log "building"
  make -C c poly
}

build_all "$@"
