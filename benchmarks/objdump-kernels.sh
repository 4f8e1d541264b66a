#!/usr/bin/env bash
# Normalised disassembly of every kernel of the release `fastpath` binary,
# one file per kernel, to prove that a restructure of the sources leaves the
# kernels' machine code as it was.
#
# Usage:
#   benchmarks/objdump-kernels.sh OUTDIR
#       Builds the release CLI (`cargo rustc --release --locked -p
#       fastpath-cli --bin fastpath`, into $CARGO_TARGET_DIR if set, with
#       -j $CARGO_BUILD_JOBS, default 1) and its linker map, and writes
#       OUTDIR/<tier>.<primitive>.s for every kernel, OUTDIR/helpers/*.s for
#       the functions the kernels call or jump to directly, and
#       OUTDIR/summary.txt (also printed: name, instruction count, hash,
#       symbol, section, out-of-line callees).
#   benchmarks/objdump-kernels.sh --binary BIN [--map MAP] OUTDIR
#       The same for a binary already built; MAP defaults to BIN.map.
#   benchmarks/objdump-kernels.sh --compare DIR_A DIR_B
#       Per file: `identical`, or the number of diff lines; the files present
#       in only one directory. Exits 1 unless all are identical.
#
# A kernel is every function symbol in a section named `.text.fastpath.*`
# (`arch::line_aligned`). The linker merges those input sections into the
# output `.text`, so the linked binary has no such section headers and the
# sections' addresses come from the linker map (`-Wl,-Map=`), which is why
# the build is `cargo rustc` with one link argument for the binary alone
# rather than `cargo build`: the dependencies are not rebuilt and the binary
# is byte-identical to the `cargo build` one. The release profile does not
# strip the symbol table; if a build is stripped, rebuild it with
# CARGO_PROFILE_RELEASE_STRIP=none.
#
# The file of a kernel is named by tier and primitive, which it takes from
# the section name in either order (`.text.fastpath.checksum.avx2` or
# `.text.fastpath.avx2.checksum`), with the fill and copy sections' vector
# types (`Avx2Splat`, `Words`, `Bytes`, ...) read as their tiers and the
# `*_vnni` primitives as the `avx512-vnni` table's: so the names stay the
# same when the sections or the functions are renamed. The files hold no
# addresses, and branch targets, callees and data references are written
# as what does not move with the layout (benchmarks/objdump-kernels.py
# says how), so an unrelated change elsewhere compares identical.
#
# Needs binutils (readelf, objdump, c++filt: 2.40 demangles Rust names) and
# python3.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
helper=$here/objdump-kernels.py

usage() {
    sed -n '/^# Usage:/,/^#$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit "${1:-2}"
}

if [[ ${1:-} == --compare ]]; then
    [[ $# -eq 3 ]] || usage
    exec python3 "$helper" compare "$2" "$3"
fi

binary=
map=
while [[ $# -gt 0 ]]; do
    case $1 in
        --binary) [[ $# -ge 2 ]] || usage; binary=$2; shift 2 ;;
        --map) [[ $# -ge 2 ]] || usage; map=$2; shift 2 ;;
        -h | --help) usage 0 ;;
        -*) usage ;;
        *) break ;;
    esac
done
[[ $# -eq 1 ]] || usage
outdir=$1

if [[ -z $binary ]]; then
    [[ -z $map ]] || usage
    # Where cargo puts the binary: $CARGO_TARGET_DIR, or the configured or
    # default target directory of the workspace.
    target_dir=$(cd "$root" && cargo metadata --format-version 1 --no-deps --locked |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
    binary=$target_dir/release/fastpath
    map=$binary.map
    (cd "$root" && cargo rustc --release --locked -p fastpath-cli --bin fastpath \
        -j "${CARGO_BUILD_JOBS:-1}" -- -C "link-arg=-Wl,-Map=$map")
elif [[ -z $map && -f $binary.map ]]; then
    map=$binary.map
fi

args=(dump --binary "$binary")
[[ -z $map ]] || args+=(--map "$map")
exec python3 "$helper" "${args[@]}" "$outdir"
