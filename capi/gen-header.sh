#!/bin/sh
# Writes include/fastpath.h from src/lib.rs and cbindgen.toml, with the
# cbindgen that .ci/capi.sh installs (or CBINDGEN, or the one on the PATH):
#   .ci/capi.sh --setup-only && capi/gen-header.sh
set -eu
cd "$(dirname "$0")"
tools=../target/ci-tools/bin/cbindgen
[ -x "$tools" ] && [ -z "${CBINDGEN:-}" ] && CBINDGEN=$(pwd)/$tools
"${CBINDGEN:-cbindgen}" --config cbindgen.toml --crate fastpath-capi --quiet --output include/fastpath.h .
