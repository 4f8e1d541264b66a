#!/usr/bin/env bash
# Runs the fastpath library's tests under AddressSanitizer and under
# valgrind's memcheck. `.ci/run` calls it; it also runs on its own:
#
#   bash .ci/sanitizers.sh              # both
#   bash .ci/sanitizers.sh asan         # AddressSanitizer only
#   bash .ci/sanitizers.sh valgrind     # valgrind only
#
# AddressSanitizer (nightly, -Zsanitizer=address): every test of the
# library, unit and integration, on every tier this CPU runs, AVX-512
# included (its masked loads are checked lane by lane). The library, the
# tests and their dependencies are instrumented; the standard library is
# not, unless ASAN_BUILD_STD=1 rebuilds it (-Zbuild-std, which needs the
# nightly's rust-src component and a few more minutes). Heap redzones do not
# depend on it: ASan's allocator serves every allocation. The 4 GiB test is
# skipped (FASTPATH_SKIP_HUGE_TESTS=1): the default run has it.
#
# valgrind memcheck: valgrind cannot execute AVX-512, and hides it from
# CPUID, so the detection never picks it. FASTPATH_TIER caps the tiers, both
# the one the dispatch picks and those the tests construct directly
# (tests/common/mod.rs): the whole suite runs with FASTPATH_TIER=avx2, which
# runs the portable, SSE2 and AVX2 kernels directly and AVX2 through the
# public entry points; the checksum and copy tests run again with
# FASTPATH_TIER=sse2 and =portable, for the public entry points on those
# tiers. Skipped under valgrind, for time: the sweep of lengths around every
# multiple of 64 up to 70 000 (a check of the arithmetic, not of memory
# accesses, which the every-length sweep and the guard pages cover) and the
# 4 GiB test.
#
# Environment (all optional):
#   SANITIZER_TARGET_DIR  cargo target dir for the ASan build
#                         (default target/ci-asan).
#   VALGRIND_TARGET_DIR   cargo target dir for the valgrind build
#                         (default: cargo's, i.e. target/, shared with
#                         `cargo test`, whose test binaries it reuses).
#   VALGRIND_JOBS         test binaries under valgrind at a time (default:
#                         the cores; valgrind runs a program's threads on
#                         one core).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

what=${1:-all}
case "$what" in all | asan | valgrind) ;; *)
  echo "usage: $0 [all|asan|valgrind]" >&2
  exit 2
  ;;
esac
HOST=$(rustc -vV | sed -n 's/^host: //p')

asan() {
  echo "--- AddressSanitizer ($(rustc +nightly -V))"
  local build_std=()
  if [[ "${ASAN_BUILD_STD:-0}" == 1 ]]; then
    rustup component list --installed --toolchain nightly 2>/dev/null | grep -q '^rust-src' ||
      rustup component add rust-src --toolchain nightly
    build_std=(-Zbuild-std)
  fi
  # --target: the sanitizer flags then reach neither build scripts nor
  # proc macros. detect_leaks=0: the tests leak nothing that matters, and
  # LeakSanitizer's ptrace does not run everywhere (containers).
  RUSTFLAGS="-Zsanitizer=address" ASAN_OPTIONS="detect_leaks=0" FASTPATH_SKIP_HUGE_TESTS=1 \
    CARGO_TARGET_DIR="${SANITIZER_TARGET_DIR:-target/ci-asan}" \
    cargo +nightly test "${build_std[@]}" --locked --target "$HOST" -p fastpath --lib --tests
}

valgrind_memcheck() {
  command -v valgrind >/dev/null || {
    echo "installing valgrind"
    apt-get -o DPkg::Lock::Timeout=300 update -qq </dev/null
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 \
      install -y -qq --no-install-recommends valgrind </dev/null >/dev/null
  }
  echo "--- valgrind memcheck ($(valgrind --version))"
  local env=(env)
  [[ -n "${VALGRIND_TARGET_DIR-}" ]] && env+=(CARGO_TARGET_DIR="$VALGRIND_TARGET_DIR")
  # The test binaries, as cargo names them ("Executable tests/copy.rs (path)").
  local binaries
  binaries=$("${env[@]}" cargo test --locked -p fastpath --lib --tests --no-run 2>&1 |
    sed -n 's/^ *Executable .*(\(.*\))$/\1/p')
  [[ -n "$binaries" ]] || { echo "no test binaries found" >&2; return 1; }
  local skip=(--skip lengths_around_multiples_of_64)
  # Each run under valgrind takes one core, whatever the test threads:
  # VALGRIND_JOBS (default: the cores) of them at a time, each into a log
  # of its own, printed in order once all are done.
  local jobs=${VALGRIND_JOBS:-$(nproc)} logs tier binary n=0 failed=0
  logs=$(mktemp -d)
  run() { # log file, then the command
    local log=$1
    shift
    "$@" >"$log" 2>&1 || echo "exit $?" >>"$log.failed"
  }
  for tier in avx2 sse2 portable; do
    # The tier first, as the test that checks it prints it.
    for binary in $binaries; do
      if [[ $(basename "$binary") =~ ^checksum- ]]; then
        FASTPATH_TIER=$tier valgrind --quiet --error-exitcode=99 "$binary" -q \
          --exact active_tier_honours_fastpath_tier --nocapture
      fi
    done
    for binary in $binaries; do
      # The lower tiers: the checksum and copy tests only.
      if [[ $tier != avx2 && ! $(basename "$binary") =~ ^(checksum|copy)- ]]; then continue; fi
      n=$((n + 1))
      echo "--- FASTPATH_TIER=$tier valgrind $(basename "$binary")" >"$logs/$n"
      while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
      # The packet tests' property tests with 256 cases, not thousands:
      # under valgrind they are for the memory accesses (`cases` there).
      FASTPATH_TIER=$tier FASTPATH_SKIP_HUGE_TESTS=1 PROPTEST_CASES=256 \
        run "$logs/$n.out" valgrind --quiet --error-exitcode=99 "$binary" -q "${skip[@]}" &
    done
  done
  wait
  local i
  for ((i = 1; i <= n; i++)); do
    cat "$logs/$i" "$logs/$i.out"
    if [[ -e "$logs/$i.out.failed" ]]; then
      cat "$logs/$i.out.failed"
      failed=1
    fi
  done
  rm -rf "$logs"
  ((failed == 0))
}

if [[ $what == all || $what == asan ]]; then asan; fi
if [[ $what == all || $what == valgrind ]]; then valgrind_memcheck; fi
