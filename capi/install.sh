#!/bin/sh
# Builds the C library and installs it under a prefix:
#
#   capi/install.sh /usr/local        # or any prefix, e.g. $HOME/.local
#
# installs PREFIX/lib/libfastpath.so (soname libfastpath.so.0),
# PREFIX/lib/libfastpath.a, PREFIX/include/fastpath.h and
# PREFIX/lib/pkgconfig/fastpath.pc (with fastpath-libs.pc), so that
#
#   cc app.c $(pkg-config --cflags --libs fastpath)            # libfastpath.so
#   cc app.c $(pkg-config --static --cflags --libs fastpath)   # libfastpath.a
#
# build a program against it (with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
# for a prefix pkg-config does not search). As root without DESTDIR, it
# runs ldconfig, so that a program linked to libfastpath.so in a prefix the
# dynamic linker searches (/usr/local/lib) runs as it is; for another
# prefix, link with -Wl,-rpath,PREFIX/lib. The static link takes the
# archive first (-l:libfastpath.a), as DPDK's libdpdk.pc does, and the
# shared library after it only as needed: the program needs no
# libfastpath.so, and links with cc -static too. DESTDIR is honoured, as by
# make. RUSTFLAGS reach the build, e.g. "-C target-cpu=native".
set -eu
prefix=${1:?usage: capi/install.sh PREFIX}
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/capi/Cargo.toml" | head -n 1)
major=${version%%.*}
target_dir=${CARGO_TARGET_DIR:-$root/target}

cargo build --release --locked --manifest-path "$root/Cargo.toml" -p fastpath-capi

libdir=${DESTDIR:-}$prefix/lib
includedir=${DESTDIR:-}$prefix/include
mkdir -p "$libdir/pkgconfig" "$includedir"
install -m 0755 "$target_dir/release/libfastpath.so" "$libdir/libfastpath.so.$version"
ln -sf "libfastpath.so.$version" "$libdir/libfastpath.so.$major"
ln -sf "libfastpath.so.$major" "$libdir/libfastpath.so"
# The archive holds the fp_ functions and nothing else global: Rust's
# standard library, compiler-rt's builtins and rust_eh_personality, which
# would clash with those of another Rust static library in the same
# program, are linked into one object with them and made local to it. Its
# section groups go too, so that the other library's copies of shared
# sections (DW.ref.rust_eh_personality) are kept for it rather than
# folded into ours, which it could no longer see.
work=$(mktemp -d "${TMPDIR:-/tmp}/fastpath-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
ld -r --whole-archive "$target_dir/release/libfastpath.a" -o "$work/fastpath.o"
objcopy --wildcard --keep-global-symbol='fp_*' --remove-section=.llvmbc \
	--remove-section=.llvmcmd --remove-section=.group "$work/fastpath.o"
ar rcs "$work/libfastpath.a" "$work/fastpath.o"
install -m 0644 "$work/libfastpath.a" "$libdir/libfastpath.a"
install -m 0644 "$root/capi/include/fastpath.h" "$includedir/fastpath.h"
# The shared library's flags are fastpath-libs.pc's, required by
# fastpath.pc: with --static, pkg-config puts fastpath.pc's own
# Libs.private (the archive, and what Rust's standard library needs from
# the C library; the compiler driver adds libgcc's unwinder, static or
# shared, itself) before them, so the archive resolves every symbol and
# --as-needed drops libfastpath.so.
cat > "$libdir/pkgconfig/fastpath-libs.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib

Name: fastpath-libs
Description: The shared library of fastpath, for fastpath.pc
Version: $version
Libs: -L\${libdir} -Wl,--as-needed -lfastpath
PC
cat > "$libdir/pkgconfig/fastpath.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: fastpath
Description: The Internet checksum (RFC 1071), protocol checksums, packet copies and fills
Version: $version
Requires: fastpath-libs
Libs.private: -L\${libdir} -l:libfastpath.a -lutil -lrt -lpthread -lm -ldl -lc
Cflags: -I\${includedir}
PC
if [ -z "${DESTDIR:-}" ] && [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then
	ldconfig
fi
echo "installed fastpath $version in $prefix"
