#!/bin/sh
# Builds the C library and installs it under a prefix:
#
#   capi/install.sh /usr/local        # or any prefix, e.g. $HOME/.local
#
# installs PREFIX/lib/libfastpath.so (soname libfastpath.so.0),
# PREFIX/lib/libfastpath.a, PREFIX/include/fastpath.h and
# PREFIX/lib/pkgconfig/fastpath.pc, so that
#
#   cc app.c $(pkg-config --cflags --libs fastpath)
#
# builds a program against it (with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
# for a prefix pkg-config does not search). DESTDIR is honoured, as by make.
# RUSTFLAGS reach the build, e.g. "-C target-cpu=native".
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
install -m 0644 "$target_dir/release/libfastpath.a" "$libdir/libfastpath.a"
install -m 0644 "$root/capi/include/fastpath.h" "$includedir/fastpath.h"
cat > "$libdir/pkgconfig/fastpath.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: fastpath
Description: The Internet checksum (RFC 1071), protocol checksums, packet copies and fills
Version: $version
Libs: -L\${libdir} -lfastpath
Libs.private: -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
Cflags: -I\${includedir}
PC
echo "installed fastpath $version in $prefix"
