#!/usr/bin/env bash
# BENCHMARKS.md's tables are what benchmarks/render.py writes from
# benchmarks/results/*.csv: the page rendered into a copy must not differ.
#   .ci/benchmarks.sh [--setup-only]
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'benchmarks: %s\n' "$*"; }
# shellcheck source=.ci/debian.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

install_missing python3
((SETUP_ONLY)) && exit 0
copy=$(mktemp --suffix=.md)
trap 'rm -f "$copy"' EXIT
python3 benchmarks/render.py -o "$copy"
if ! diff -u BENCHMARKS.md "$copy"; then
  log "BENCHMARKS.md is not what benchmarks/render.py writes from benchmarks/results/ (run it)" >&2
  exit 1
fi
log "BENCHMARKS.md's tables are those of benchmarks/results/"
