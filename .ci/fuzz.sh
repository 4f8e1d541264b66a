#!/usr/bin/env bash
# The differential fuzz targets (fuzz/): every committed seed of every
# target replayed, then each target fuzzed for FUZZ_SECONDS (60) seconds,
# two at a time. Any finding fails: its input is in fuzz/artifacts/<target>/,
# and goes into fuzz/seeds/<target>/ once fixed, so that the replay keeps it.
#   .ci/fuzz.sh [--setup-only]
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'fuzz: %s\n' "$*"; }
# shellcheck source=.ci/debian.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

CARGO_FUZZ_VERSION=0.13.2
tools=$PWD/target/ci-tools
if [[ "$("$tools/bin/cargo-fuzz" --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]]; then
  log "installing cargo-fuzz $CARGO_FUZZ_VERSION"
  cargo install --locked --quiet --root "$tools" cargo-fuzz --version "$CARGO_FUZZ_VERSION"
fi
export PATH="$tools/bin:$PATH"
((SETUP_ONLY)) && exit 0

log "the committed seeds"
FUZZ_JOBS=2 bash fuzz/run.sh 0
log "each target for ${FUZZ_SECONDS:-60} s"
FUZZ_JOBS=2 bash fuzz/run.sh "${FUZZ_SECONDS:-60}"
