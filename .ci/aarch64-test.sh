#!/usr/bin/env bash
# Runs the fastpath library's tests for aarch64 (the NEON tier) on an x86_64
# Debian 12 machine: cross-built with Debian's own Rust toolchain and run
# under qemu user-mode emulation.
#
#   bash .ci/aarch64-test.sh                   # install what is missing, then test
#   bash .ci/aarch64-test.sh -- --nocapture    # extra arguments go to `cargo test`
#   bash .ci/aarch64-test.sh --setup-only      # only install / check the tools
#
# Why Debian's toolchain: rustup's can only add a target by downloading it,
# which this workplace cannot do, while Debian ships a prebuilt aarch64
# standard library (libstd-rust-web-dev:arm64, through dpkg multiarch) that
# matches its rustc-web compiler. rustup's toolchain is not used or touched.
#
# Environment (all optional):
#   QEMU_CPU                 qemu's CPU model. Default "max" (every feature
#                            qemu knows); QEMU_CPU=cortex-a53 is a plain ARMv8.0.
#   AARCH64_TARGET_DIR       cargo's target dir (default target/aarch64-debian).
#   AARCH64_RUSTFLAGS        RUSTFLAGS for this build. Ambient RUSTFLAGS are not
#                            passed on: they are usually x86-specific.
#   AARCH64_TIMEOUT_S        kill `cargo test` after this many seconds.
#   AARCH64_HUGE_TESTS=1     also run the tests with buffers over 4 GiB, which
#                            take minutes under emulation; by default they are
#                            skipped (FASTPATH_SKIP_HUGE_TESTS=1).
set -euo pipefail

TARGET=aarch64-unknown-linux-gnu
PACKAGES=(rustc-web cargo-web gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libstd-rust-web-dev:arm64)
RUSTC=/usr/bin/rustc
RUSTDOC=/usr/bin/rustdoc
CARGO=/usr/bin/cargo

log() { printf '[aarch64-test] %s\n' "$*" >&2; }

# shellcheck source=.ci/debian.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

# ------------------------------------------------------------------ setup
t0=$SECONDS
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  log "enabling the arm64 architecture in dpkg"
  "${SUDO[@]}" dpkg --add-architecture arm64
fi
# libstd-rust-web-dev:arm64 brings libc6:arm64 and LLVM's arm64 libraries
# (about 260 MB to download). Being Multi-Arch: same, it may upgrade a few
# amd64 libraries to the version of their arm64 twins.
install_missing "${PACKAGES[@]}"
for f in "$RUSTC" "$RUSTDOC" "$CARGO" /usr/bin/qemu-aarch64 /usr/bin/aarch64-linux-gnu-gcc; do
  [[ -x "$f" ]] || { log "missing $f after install"; exit 1; }
done
if ! compgen -G "$("$RUSTC" --print sysroot)/lib/rustlib/$TARGET/lib/libstd-*.rlib" >/dev/null; then
  log "no prebuilt $TARGET standard library for $("$RUSTC" -V)"
  log "(are the amd64 and arm64 versions of libstd-rust-web-dev the same?)"
  exit 1
fi
log "$("$RUSTC" -V) | $(qemu-aarch64 --version | head -n1) | QEMU_CPU=${QEMU_CPU:-max}"
log "setup took $((SECONDS - t0))s"
((SETUP_ONLY)) && exit 0

# ------------------------------------------------------------------ test
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# qemu finds the arm64 dynamic loader and libc of the multiarch libc6:arm64
# on its own. Do not add `-L /usr/aarch64-linux-gnu` or QEMU_LD_PREFIX: that
# loads the cross toolchain's ld.so with the multiarch libc.so.6, two
# different glibc builds, and every thread spawn (every libtest test) then
# spins forever in pthread_create.
[[ -e /lib/ld-linux-aarch64.so.1 ]] || { log "libc6:arm64 is missing"; exit 1; }

TIMEOUT=()
[[ -n "${AARCH64_TIMEOUT_S-}" ]] && TIMEOUT=(timeout --kill-after=30 "$AARCH64_TIMEOUT_S")

# RUSTC and RUSTDOC must be Debian's: otherwise /usr/bin/cargo runs the
# rustc first on PATH (rustup's), which has no aarch64 standard library.
# Only the library package is tested: the CLI's dev-dependencies are heavy.
HUGE=(FASTPATH_SKIP_HUGE_TESTS=1) NO_HUGE=()
if [[ "${AARCH64_HUGE_TESTS:-0}" == 1 ]]; then HUGE=() NO_HUGE=(-u FASTPATH_SKIP_HUGE_TESTS); fi

t1=$SECONDS
status=0
"${TIMEOUT[@]}" env -u QEMU_LD_PREFIX -u RUSTUP_TOOLCHAIN -u RUSTC_WRAPPER \
  -u RUSTC_WORKSPACE_WRAPPER -u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_TARGET "${NO_HUGE[@]}" \
  RUSTC="$RUSTC" RUSTDOC="$RUSTDOC" \
  RUSTFLAGS="${AARCH64_RUSTFLAGS-}" \
  CARGO_TARGET_DIR="${AARCH64_TARGET_DIR:-$ROOT/target/aarch64-debian}" \
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER=qemu-aarch64 \
  CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc \
  AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar \
  "${HUGE[@]}" \
  "$CARGO" test -p fastpath --target "$TARGET" "$@" </dev/null || status=$?
log "cargo test --target $TARGET exited $status after $((SECONDS - t1))s"
exit "$status"
