#!/bin/sh
# The C interface's checks, end to end:
#
#   sh capi/tests/run.sh
#
# installs the library in a temporary prefix (capi/install.sh), then
# builds capi/tests/dpdk_diff.c (fastpath against DPDK 22.11's checksums
# and a C reference) and runs it against the shared library, against the
# static one, under valgrind (the AVX2 tier: valgrind cannot run AVX-512),
# with the SSE2 and portable tiers, and built with FP_NO_INLINE; compiles
# and runs capi/tests/cxx_header.cpp (the header from C++); and builds a
# program with `cc app.c $(pkg-config --cflags --libs fastpath)` (with the
# run path the README gives), with `--static`, and with cc -static, and
# runs each with no LD_LIBRARY_PATH; with FP_SYSTEM_PREFIX (as root), also
# installed there, with pkg-config's flags alone.
# Ends with "capi: N passed, M failed", the sum over all the runs; exits
# non-zero on any failure. FP_DIFF_SEED overrides dpdk_diff's seed; CC and
# CXX the compilers (cc, g++).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
CC=${CC:-cc}
CXX=${CXX:-g++}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fastpath-capi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
prefix=$tmp/prefix
# The runs choose their tier themselves.
unset FASTPATH_TIER FP_DIFF_QUICK || true

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
begin=$(now)
step_name=
step_start=
step_end() {
	if [ -n "$step_name" ]; then
		t=$(since "$step_start")
		printf 'capi: (%s s)\n' "$t"
		printf '%8s s  %s\n' "$t" "$step_name" >>"$tmp/times"
	fi
	step_name=
}
step() {
	step_end
	step_name=$*
	step_start=$(now)
	printf '\ncapi: === %s\n' "$*"
}
# Prints a command, then runs it.
x() {
	printf '+ %s\n' "$*"
	"$@"
}

total_pass=0
total_fail=0
failures=
failed() {
	total_fail=$((total_fail + 1))
	failures="$failures
  $*"
	printf 'capi: FAILED: %s\n' "$*"
}

# Runs a dpdk_diff build (the command after the label), shows its output
# and adds its "dpdk_diff: N passed, M failed" to the totals. A run that
# exits non-zero (a failed check, a valgrind error, a crash) is a failure
# even if its line says 0 failed.
diff_run() {
	label=$1
	shift
	log=$tmp/run.log
	printf '+ %s\n' "$*"
	if "$@" >"$log" 2>&1; then rc=0; else rc=$?; fi
	cat "$log"
	line=$(grep -E '^dpdk_diff: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
	if [ -n "$line" ]; then
		n=$(echo "$line" | sed 's/^dpdk_diff: \([0-9]*\) passed, \([0-9]*\) failed$/\1/')
		m=$(echo "$line" | sed 's/^dpdk_diff: \([0-9]*\) passed, \([0-9]*\) failed$/\2/')
	else
		n=0
		m=0
	fi
	total_pass=$((total_pass + n))
	total_fail=$((total_fail + m))
	if [ "$rc" -ne 0 ]; then
		[ "$m" -ne 0 ] || total_fail=$((total_fail + 1))
		failures="$failures
  $label (exit status $rc)"
		printf 'capi: FAILED: %s (exit status %s)\n' "$label" "$rc"
	fi
}

# Runs a command that is one check: 1 passed or 1 failed.
one_check() {
	label=$1
	shift
	printf '+ %s\n' "$*"
	if "$@"; then
		total_pass=$((total_pass + 1))
	else
		failed "$label"
	fi
}

seed=${FP_DIFF_SEED:-}
src=$here/dpdk_diff.c
base_flags="-O2 -std=c11 -Wall -Wextra -Wshadow -Werror -DALLOW_EXPERIMENTAL_API"

step "install the library: capi/install.sh $prefix"
x sh "$root/capi/install.sh" "$prefix"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
dpdk_cflags=$(pkg-config --cflags libdpdk)
fp_flags=$(pkg-config --cflags --libs fastpath)
printf 'pkg-config --cflags --libs fastpath: %s\n' "$fp_flags"
# No DPDK library is linked: dpdk_diff uses DPDK's static inline functions
# only (rte_ip.h, rte_mbuf.h), and makes its mbufs by hand, without EAL.

step "build dpdk_diff against libfastpath.so"
# shellcheck disable=SC2046,SC2086 # the flags are split into words
x "$CC" $base_flags $dpdk_cflags "$src" -o "$tmp/dpdk_diff" $fp_flags -Wl,-rpath,"$prefix/lib"
ldd "$tmp/dpdk_diff" | grep fastpath

step "run dpdk_diff (shared library, the CPU's own tier, full)"
# shellcheck disable=SC2046,SC2086
diff_run "dpdk_diff, shared" "$tmp/dpdk_diff" $seed

step "build dpdk_diff against libfastpath.a: pkg-config --static"
# shellcheck disable=SC2046,SC2086
x "$CC" $base_flags $dpdk_cflags "$src" -o "$tmp/dpdk_diff_static" \
	$(pkg-config --static --cflags --libs fastpath)
if readelf -d "$tmp/dpdk_diff_static" | grep -q 'NEEDED.*libfastpath'; then
	failed "the static build of dpdk_diff needs libfastpath.so"
else
	echo "dpdk_diff_static does not need libfastpath.so"
fi

step "run dpdk_diff (static library, full)"
# shellcheck disable=SC2046,SC2086
diff_run "dpdk_diff, static" "$tmp/dpdk_diff_static" $seed

step "run dpdk_diff under valgrind (FASTPATH_TIER=avx2, quick)"
# shellcheck disable=SC2046,SC2086
diff_run "dpdk_diff, valgrind, avx2" env FASTPATH_TIER=avx2 FP_DIFF_QUICK=1 \
	valgrind -q --error-exitcode=1 --leak-check=no "$tmp/dpdk_diff" $seed

for tier in sse2 portable; do
	step "run dpdk_diff with FASTPATH_TIER=$tier (quick)"
	# shellcheck disable=SC2046,SC2086
	diff_run "dpdk_diff, $tier" env FASTPATH_TIER=$tier FP_DIFF_QUICK=1 "$tmp/dpdk_diff" $seed
done

step "build dpdk_diff with -DFP_NO_INLINE, and run it (quick)"
# shellcheck disable=SC2046,SC2086
x "$CC" $base_flags -DFP_NO_INLINE $dpdk_cflags "$src" -o "$tmp/dpdk_diff_noinline" $fp_flags \
	-Wl,-rpath,"$prefix/lib"
# shellcheck disable=SC2046,SC2086
diff_run "dpdk_diff, FP_NO_INLINE" env FP_DIFF_QUICK=1 "$tmp/dpdk_diff_noinline" $seed

step "the header from C++: compile capi/tests/cxx_header.cpp, link and run it"
# shellcheck disable=SC2046,SC2086
one_check "cxx_header.cpp compiles" "$CXX" -std=c++11 -Wall -Wextra -Wshadow -Wold-style-cast -Werror \
	-c "$here/cxx_header.cpp" -o "$tmp/cxx_header.o" $(pkg-config --cflags fastpath)
# shellcheck disable=SC2046,SC2086
one_check "cxx_header.cpp compiles with FP_NO_INLINE" "$CXX" -std=c++11 -Wall -Wextra -Wshadow -Wold-style-cast -Werror \
	-DFP_NO_INLINE -c "$here/cxx_header.cpp" -o "$tmp/cxx_header_noinline.o" $(pkg-config --cflags fastpath)
if [ -f "$tmp/cxx_header.o" ]; then
	# shellcheck disable=SC2046,SC2086
	one_check "cxx_header links" "$CXX" "$tmp/cxx_header.o" -o "$tmp/cxx_header" $fp_flags \
		-Wl,-rpath,"$prefix/lib"
	[ ! -x "$tmp/cxx_header" ] || one_check "cxx_header runs" "$tmp/cxx_header"
fi

step "a program from C, built by: cc app.c \$(pkg-config --cflags --libs fastpath)"
mkdir "$tmp/app"
cat >"$tmp/app/app.c" <<'EOF'
#include <fastpath.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	/* An IPv4 header whose checksum is 0xb861, and a UDP packet. */
	unsigned char header[20] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
	};
	unsigned char packet[32] = {
		0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0xb8, 0xb4, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
		0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, 'p', 'i', 'n', 'g',
	};
	uint16_t cksum = fp_ipv4_cksum(header), l4 = 0;
	unsigned char bytes[2];
	int ok;

	memcpy(bytes, &cksum, 2);
	ok = bytes[0] == 0xb8 && bytes[1] == 0x61;
	ok &= fp_l4_write_checksum(packet, sizeof(packet), &l4) == 0;
	ok &= packet[26] == 0x6e && packet[27] == 0x7e;
	ok &= fp_l4_verify(packet, sizeof(packet)) == 1;
	/* The library's version is the header's. */
	char version[32];
	snprintf(version, sizeof(version), "%d.%d.%d", FP_VERSION_MAJOR, FP_VERSION_MINOR,
		 FP_VERSION_PATCH);
	ok &= strcmp(version, fp_version()) == 0;
	printf("app: %s (fastpath %s, tier %s)\n", ok ? "ok" : "FAILED", fp_version(),
	       fp_active_tier());
	return ok ? 0 : 1;
}
EOF
# Built exactly as the README says, and run with no LD_LIBRARY_PATH: the
# shared library through the run path the README gives for a prefix the
# dynamic linker does not search; the static one through pkg-config
# --static alone, needing no libfastpath.so, and with cc -static.
# shellcheck disable=SC2046
if (cd "$tmp/app" && x "$CC" app.c -o shared $(pkg-config --cflags --libs fastpath) \
	-Wl,-rpath,"$prefix/lib"); then
	total_pass=$((total_pass + 1))
	one_check "app.c runs, shared" env -u LD_LIBRARY_PATH "$tmp/app/shared"
else
	failed "app.c builds with pkg-config's flags"
fi
# shellcheck disable=SC2046
if (cd "$tmp/app" && x "$CC" app.c -o static $(pkg-config --static --cflags --libs fastpath)); then
	total_pass=$((total_pass + 1))
	one_check "app.c runs, static" env -u LD_LIBRARY_PATH "$tmp/app/static"
	if readelf -d "$tmp/app/static" | grep -q 'NEEDED.*libfastpath'; then
		failed "app.c linked with pkg-config --static needs libfastpath.so"
	else
		total_pass=$((total_pass + 1))
	fi
else
	failed "app.c builds with pkg-config --static's flags"
fi
# shellcheck disable=SC2046
if (cd "$tmp/app" && x "$CC" -static app.c -o fully_static \
	$(pkg-config --static --cflags --libs fastpath)); then
	total_pass=$((total_pass + 1))
	one_check "app.c runs, cc -static" "$tmp/app/fully_static"
else
	failed "app.c builds with cc -static and pkg-config --static's flags"
fi
# libfastpath.a exports the fp_ functions alone, and links beside another
# Rust static library (capi/tests/second), in either order.
others=$(readelf -sW "$prefix/lib/libfastpath.a" |
	awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && $8 !~ /^fp_/' | wc -l)
if [ "$others" -eq 0 ]; then
	total_pass=$((total_pass + 1))
else
	failed "libfastpath.a defines $others global symbols besides the fp_ functions"
fi
cat >"$tmp/app/two.c" <<'EOF'
#include <fastpath.h>
#include <stdio.h>

int second_digits(unsigned long long n);

int main(void)
{
	unsigned char header[20] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
	};
	int ok = fp_ipv4_cksum(header) != 0 && second_digits(123456) == 6;
	printf("two Rust static libraries: %s\n", ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}
EOF
x cargo build --release --quiet --locked --manifest-path "$here/second/Cargo.toml" \
	--target-dir "$tmp/second"
second=$tmp/second/release/libsecond.a
# shellcheck disable=SC2046
if (cd "$tmp/app" && x "$CC" two.c -o two $(pkg-config --static --cflags --libs fastpath) "$second" &&
	x "$CC" two.c -o two_reversed $(pkg-config --cflags fastpath) "$second" \
		$(pkg-config --static --libs fastpath)); then
	total_pass=$((total_pass + 1))
	one_check "two Rust static libraries in one program" "$tmp/app/two"
	one_check "two Rust static libraries, the other first" "$tmp/app/two_reversed"
else
	failed "a C program with libfastpath.a and another Rust static library links"
fi
# Into a prefix the dynamic linker searches (FP_SYSTEM_PREFIX, as root:
# .ci/capi.sh gives /usr/local), built with pkg-config's flags alone.
if [ -n "${FP_SYSTEM_PREFIX:-}" ]; then
	x sh "$root/capi/install.sh" "$FP_SYSTEM_PREFIX" >/dev/null
	# shellcheck disable=SC2046
	if (cd "$tmp/app" && x env PKG_CONFIG_PATH="$FP_SYSTEM_PREFIX/lib/pkgconfig" \
		"$CC" app.c -o system $(PKG_CONFIG_PATH="$FP_SYSTEM_PREFIX/lib/pkgconfig" \
		pkg-config --cflags --libs fastpath)); then
		total_pass=$((total_pass + 1))
		one_check "app.c runs, installed in $FP_SYSTEM_PREFIX" env -u LD_LIBRARY_PATH "$tmp/app/system"
	else
		failed "app.c builds against $FP_SYSTEM_PREFIX with pkg-config's flags alone"
	fi
fi
step_end

printf '\ncapi: times\n'
cat "$tmp/times"
printf '%8s s  all\n' "$(since "$begin")"
if [ -n "$failures" ]; then
	printf 'capi: failed:%s\n' "$failures"
fi
echo "capi: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ -z "$failures" ]
