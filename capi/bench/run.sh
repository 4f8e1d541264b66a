#!/bin/sh
# fastpath against DPDK's inline checksums, in one C process: run by hand,
# not in CI.
#
#   sh capi/bench/run.sh [rounds] [TSC cycles per measurement]
#
# Installs fastpath into a temporary prefix (capi/install.sh, i.e. cargo
# build --release -p fastpath-capi), builds capi/bench/cksum_perf.c against
# DPDK's headers (pkg-config libdpdk) and libfastpath, and runs each build:
#
#   1. Debian's DPDK flags, $(pkg-config --cflags libdpdk) -O3, which hold
#      -march=corei7 (SSE4.2): how DPDK's inline code is built by default;
#   2. the same with -march=native after them (gcc takes the last -march;
#      each binary prints the ISA it was compiled for, to show it);
#   3. as 2 with -DFP_NO_INLINE: fastpath's library call for every length;
#   4. as 2, linked against libfastpath.so: the PLT call;
#   5. the AVX2-only regime on an AVX-512 machine: DPDK built with
#      -march=native -mno-avx512f, fastpath run with FASTPATH_TIER=avx2.
#
# All but 4 link the static libfastpath.a. Needs cargo, a C compiler (CC,
# default cc), pkg-config and DPDK's headers (libdpdk-dev). Each binary
# takes about 5 s; keep the machine otherwise idle. Arguments go to each
# binary: the rounds (default 15) and the TSC cycles of one measurement
# (default 20000000).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fastpath-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
prefix=$tmp/prefix

sh "$root/capi/install.sh" "$prefix" >&2

PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH

dpdk_cflags=$(pkg-config --cflags libdpdk)
fp_cflags=$(pkg-config --cflags fastpath)
# pkg-config --static puts libfastpath.a first, so the program needs no
# libfastpath.so.
static_libs=$(pkg-config --static --libs fastpath)
src=$root/capi/bench/cksum_perf.c

# build NAME DESCRIPTION LINK CFLAGS... : compiles $src into $tmp/NAME.
build() {
	name=$1 desc=$2 link=$3
	shift 3
	case $link in
	static) libs=$static_libs ;;
	shared) libs="-L$prefix/lib -Wl,-rpath,$prefix/lib -lfastpath" ;;
	esac
	# shellcheck disable=SC2086 # word splitting of the flag lists wanted
	"$cc" $dpdk_cflags $fp_cflags "$@" "-DBUILD_FLAGS=\"$desc\"" "-DFP_LINK=\"$link\"" \
		-o "$tmp/$name" "$src" $libs
}

build corei7 "-march=corei7 -O3 (pkg-config libdpdk)" static -O3
build native "-march=native -O3" static -O3 -march=native
build native-noinline "-march=native -O3, FP_NO_INLINE" static -O3 -march=native -DFP_NO_INLINE
build native-shared "-march=native -O3, libfastpath.so" shared -O3 -march=native
build native-avx2 "-march=native -mno-avx512f -O3; FASTPATH_TIER=avx2" static -O3 -march=native -mno-avx512f

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); compiler: $("$cc" --version | head -n 1)"
for name in corei7 native native-noinline native-shared; do
	echo
	"$tmp/$name" "$@"
done
if grep -q avx512f /proc/cpuinfo; then
	echo
	FASTPATH_TIER=avx2 "$tmp/native-avx2" "$@"
fi
