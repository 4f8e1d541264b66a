#!/usr/bin/env bash
# Runs the fastpath library's tests on s390x, a big-endian target, on an
# x86_64 Debian 12 machine: cross-built with Debian's own Rust toolchain and
# a standard library built from source, run under qemu user-mode emulation.
#
#   bash .ci/s390x-test.sh                   # install what is missing, then test
#   bash .ci/s390x-test.sh -- --nocapture    # extra arguments go to `cargo test`
#   bash .ci/s390x-test.sh --setup-only      # only install / check the tools
#
# Why build-std: rustup can only add a target by downloading it, which this
# workplace cannot do, and Debian 12's multiarch s390x standard library
# (libstd-rust-dev:s390x) is 1.85, older than the compiler it would have to
# match (rustc-web 1.96; the library needs 1.89). So the standard library is
# built from Debian's own copy of its source (rust-web-src, which vendors its
# dependencies: no network) with `cargo -Zbuild-std`, which stable Debian
# cargo accepts under RUSTC_BOOTSTRAP=1. The first build takes a few minutes;
# later ones reuse the target dir. rustup's toolchain is not used or touched.
#
# There is no multiarch s390x libc either: the cross toolchain's sysroot
# (libc6-dev-s390x-cross) is self-consistent, and qemu is pointed at it with
# QEMU_LD_PREFIX.
#
# Environment (all optional):
#   S390X_TARGET_DIR       cargo's target dir (default target/s390x-debian-build-std).
#   S390X_RUSTFLAGS        RUSTFLAGS for this build. Ambient RUSTFLAGS are not
#                          passed on: they are usually x86-specific.
#   S390X_TIMEOUT_S        kill `cargo test` after this many seconds.
#   S390X_HUGE_TESTS=1     also run the tests with buffers over 4 GiB (minutes
#                          under emulation); skipped by default
#                          (FASTPATH_SKIP_HUGE_TESTS=1).
set -euo pipefail

TARGET=s390x-unknown-linux-gnu
PACKAGES=(rustc-web cargo-web rust-web-src gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user)
RUSTC=/usr/bin/rustc
RUSTDOC=/usr/bin/rustdoc
CARGO=/usr/bin/cargo
SYSROOT_LIBC=/usr/s390x-linux-gnu

log() { printf '[s390x-test] %s\n' "$*" >&2; }

# shellcheck source=.ci/debian.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

# ------------------------------------------------------------------ setup
t0=$SECONDS
install_missing "${PACKAGES[@]}"
for f in "$RUSTC" "$RUSTDOC" "$CARGO" /usr/bin/qemu-s390x /usr/bin/s390x-linux-gnu-gcc; do
  [[ -x "$f" ]] || { log "missing $f after install"; exit 1; }
done
SRC="$("$RUSTC" --print sysroot)/lib/rustlib/src/rust/library"
[[ -f "$SRC/Cargo.lock" ]] || { log "no standard library source at $SRC (rust-web-src)"; exit 1; }
[[ -e "$SYSROOT_LIBC/lib/ld64.so.1" ]] || { log "no s390x libc at $SYSROOT_LIBC"; exit 1; }
log "$("$RUSTC" -V) | $(qemu-s390x --version | head -n1) | std from $SRC"
log "setup took $((SECONDS - t0))s"
((SETUP_ONLY)) && exit 0

# ------------------------------------------------------------------ test
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

TIMEOUT=()
[[ -n "${S390X_TIMEOUT_S-}" ]] && TIMEOUT=(timeout --kill-after=30 "$S390X_TIMEOUT_S")

HUGE=(FASTPATH_SKIP_HUGE_TESTS=1) NO_HUGE=()
if [[ "${S390X_HUGE_TESTS:-0}" == 1 ]]; then HUGE=() NO_HUGE=(-u FASTPATH_SKIP_HUGE_TESTS); fi

# RUSTC and RUSTDOC must be Debian's: the source in rust-web-src is that of
# its 1.96 standard library. RUSTC_BOOTSTRAP=1 unlocks -Zbuild-std on stable
# cargo (caveat: build scripts that probe for nightly features then see them
# as available). Only the library package is tested, its unit and
# integration tests: the CLI's dependencies are heavy, and doc tests of a
# cross build would need a rustdoc that runs under qemu.
t1=$SECONDS
status=0
"${TIMEOUT[@]}" env -u RUSTUP_TOOLCHAIN -u RUSTC_WRAPPER -u RUSTC_WORKSPACE_WRAPPER \
  -u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_TARGET -u FASTPATH_TIER "${NO_HUGE[@]}" \
  RUSTC="$RUSTC" RUSTDOC="$RUSTDOC" RUSTC_BOOTSTRAP=1 \
  RUSTFLAGS="${S390X_RUSTFLAGS-}" \
  CARGO_TARGET_DIR="${S390X_TARGET_DIR:-$ROOT/target/s390x-debian-build-std}" \
  CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER=s390x-linux-gnu-gcc \
  CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER=qemu-s390x \
  QEMU_LD_PREFIX="$SYSROOT_LIBC" \
  CC_s390x_unknown_linux_gnu=s390x-linux-gnu-gcc \
  AR_s390x_unknown_linux_gnu=s390x-linux-gnu-ar \
  "${HUGE[@]}" \
  "$CARGO" test -Zbuild-std --locked -p fastpath --target "$TARGET" --lib --tests "$@" </dev/null || status=$?
log "cargo test --target $TARGET exited $status after $((SECONDS - t1))s"
exit "$status"
