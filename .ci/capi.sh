#!/usr/bin/env bash
# The C interface: the checked-in header is what cbindgen writes from the
# sources, and capi/tests/run.sh passes (the DPDK differential test against
# the shared and the static library, under valgrind, the C++ header check,
# and a program built by pkg-config alone).
#   .ci/capi.sh [--setup-only]
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'capi: %s\n' "$*"; }
# shellcheck source=.ci/debian.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

# The version whose output is checked in: another may format differently.
CBINDGEN_VERSION=0.29.4
PACKAGES=(libdpdk-dev pkg-config valgrind gcc g++)
install_missing "${PACKAGES[@]}"
tools=target/ci-tools
if [[ "$("$tools/bin/cbindgen" --version 2>/dev/null)" != "cbindgen $CBINDGEN_VERSION" ]]; then
  log "installing cbindgen $CBINDGEN_VERSION"
  cargo install --locked --quiet --root "$tools" cbindgen --version "$CBINDGEN_VERSION"
fi
((SETUP_ONLY)) && exit 0

log "capi/include/fastpath.h is what cbindgen writes"
fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
"$tools/bin/cbindgen" --config capi/cbindgen.toml --crate fastpath-capi --quiet --output "$fresh" capi
if ! diff -u capi/include/fastpath.h "$fresh"; then
  log "capi/include/fastpath.h is stale: run capi/gen-header.sh and commit it"
  exit 1
fi

# As root (CI), the library is also installed into /usr/local, where a
# program built with pkg-config's flags alone must run as it is.
if [[ "$(id -u)" == 0 ]]; then export FP_SYSTEM_PREFIX=/usr/local; fi
sh capi/tests/run.sh
