//! Gives the shared library its soname, `libfastpath.so.0`: the name
//! programs record, which the install step links to the versioned file.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" || os == "freebsd" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libfastpath.so.0");
    }
}
