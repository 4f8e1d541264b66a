#!/usr/bin/env bash
# Builds the fastpath library without std (`--no-default-features`) for the
# bare-metal targets its users build for, on an x86_64 Debian 12 machine:
#
#   x86_64-unknown-none             kernels, bootloaders: soft-float, no SSE
#   aarch64-unknown-none-softfloat  soft-float, no NEON
#   thumbv7em-none-eabihf           Cortex-M4F/M7F: 32-bit, hard-float
#
# Without std the kernel tier is chosen at compile time from the target's
# features, so these builds check that the portable code compiles on a 32-bit
# target and that no vector kernel reaches a target without vector registers:
# on x86_64-unknown-none LLVM fails on it ("Do not know how to soften this
# operator's operand"); on aarch64-unknown-none-softfloat rustc warns
# (aarch64_softfloat_neon, a future hard error), and warnings are errors here.
# Only the library is built, nothing is linked or run, in both profiles:
# release is what users ship; debug because release's optimisations can drop
# a kernel that the compile-time tier choice leaves unreachable before LLVM
# sees it (so far, x86_64-unknown-none built in release and failed in debug,
# which users build too).
#
#   bash .ci/no-std-targets.sh                # install what is missing, then build
#   bash .ci/no-std-targets.sh --setup-only   # only install / check the tools
#
# Why build-std: rustup can only add a target by downloading it, which this
# workplace cannot do, and Debian ships no prebuilt `core` for these targets.
# So `core` (and compiler_builtins) is built from Debian's own copy of the
# standard library's source (rust-web-src) with `cargo -Zbuild-std=core`,
# which stable Debian cargo accepts under RUSTC_BOOTSTRAP=1, as in
# .ci/s390x-test.sh. (Cargo still fetches the standard library's locked
# dependencies from crates.io once, into ~/.cargo, though `core` uses none.)
# The first run builds `core` once per target and profile, 20 to 35 s each
# on two cores, about 2.5 to 3.5 minutes in all; later runs reuse the target
# dir and take seconds. rustup's toolchain is not used or touched.
#
# On aarch64-unknown-none-softfloat cargo notes that `core` "contains code
# that will be rejected by a future version of Rust": the NEON intrinsics of
# the standard library itself, not fastpath's code; its lints are capped.
#
# Environment (all optional):
#   NO_STD_TARGETS      the targets, space-separated (default: the three above).
#   NO_STD_PROFILES     cargo profiles, space-separated (default "release dev").
#   NO_STD_TARGET_DIR   cargo's target dir (default target/no-std).
#   NO_STD_RUSTFLAGS    more RUSTFLAGS for these builds. Ambient RUSTFLAGS
#                       (and CARGO_ENCODED_RUSTFLAGS, CARGO_BUILD_RUSTFLAGS,
#                       CARGO_TARGET_<triple>_RUSTFLAGS) are not passed on:
#                       they are usually for the host.
#   NO_STD_DENY_WARNINGS=0  let warnings pass. By default the library's
#                       warnings are errors: on these targets they are real
#                       (e.g. aarch64_softfloat_neon, NEON enabled on a
#                       soft-float target). `core` is not affected: cargo
#                       caps its lints.
set -euo pipefail

TARGETS=(${NO_STD_TARGETS:-x86_64-unknown-none aarch64-unknown-none-softfloat thumbv7em-none-eabihf})
PROFILES=(${NO_STD_PROFILES:-release dev})
PACKAGES=(rustc-web cargo-web rust-web-src)
RUSTC=/usr/bin/rustc
CARGO=/usr/bin/cargo

log() { printf '[no-std-targets] %s\n' "$*" >&2; }

# shellcheck source=.ci/debian.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

# ------------------------------------------------------------------ setup
t0=$SECONDS
install_missing "${PACKAGES[@]}"
for f in "$RUSTC" "$CARGO"; do
  [[ -x "$f" ]] || { log "missing $f after install"; exit 1; }
done
SRC="$("$RUSTC" --print sysroot)/lib/rustlib/src/rust/library"
[[ -f "$SRC/Cargo.lock" ]] || { log "no standard library source at $SRC (rust-web-src)"; exit 1; }
known=$("$RUSTC" --print target-list)
for t in "${TARGETS[@]}"; do
  grep -qxF "$t" <<<"$known" || { log "$("$RUSTC" -V) does not know the target $t"; exit 1; }
done
log "$("$RUSTC" -V) | core from $SRC"
log "setup took $((SECONDS - t0))s"
((SETUP_ONLY)) && exit 0

# ------------------------------------------------------------------ build
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# The environment of every build. RUSTC must be Debian's: the source in
# rust-web-src is that of its standard library. RUSTFLAGS, set (even empty),
# overrides CARGO_BUILD_RUSTFLAGS and CARGO_TARGET_<triple>_RUSTFLAGS;
# CARGO_ENCODED_RUSTFLAGS would override it, so it is removed. RUSTC_BOOTSTRAP=1
# unlocks -Zbuild-std on stable cargo.
DENY=-Dwarnings
[[ "${NO_STD_DENY_WARNINGS:-1}" == 0 ]] && DENY=
BUILD_ENV=(env -u RUSTUP_TOOLCHAIN -u RUSTC_WRAPPER -u RUSTC_WORKSPACE_WRAPPER
  -u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_TARGET -u CARGO_BUILD_TARGET_DIR
  RUSTC="$RUSTC" RUSTC_BOOTSTRAP=1
  RUSTFLAGS="$DENY ${NO_STD_RUSTFLAGS-}"
  CARGO_TARGET_DIR="${NO_STD_TARGET_DIR:-$ROOT/target/no-std}")

results=()
failed=0
for target in "${TARGETS[@]}"; do
  for profile in "${PROFILES[@]}"; do
    log "--- $target ($profile)"
    t1=$SECONDS
    status=0
    "${BUILD_ENV[@]}" "$CARGO" build --locked -p fastpath --no-default-features \
      --target "$target" --profile "$profile" -Zbuild-std=core </dev/null || status=$?
    if ((status == 0)); then
      verdict=PASS
    else
      verdict="FAIL (cargo exited $status)"
      failed=$((failed + 1))
    fi
    results+=("$(printf '%-5s %-31s %-7s %4ss' "${verdict%% *}" "$target" "$profile" $((SECONDS - t1)))")
    log "$verdict: $target ($profile) after $((SECONDS - t1))s"
  done
done

log "summary (total $((SECONDS - t0))s):"
for r in "${results[@]}"; do log "  $r"; done
if ((failed)); then
  log "$failed of ${#results[@]} builds FAILED"
  exit 1
fi
log "all ${#results[@]} builds passed"
