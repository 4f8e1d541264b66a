//! A Rust static library of another project, with Rust's standard library
//! in it as in every Rust `staticlib`: `capi/tests/run.sh` links it beside
//! `libfastpath.a` into one C program, which must build and run.

use std::ffi::c_int;

/// The number of decimal digits of `n`, through `format!`, so that the
/// library carries the standard library's formatting and allocator.
#[unsafe(no_mangle)]
pub extern "C" fn second_digits(n: u64) -> c_int {
    format!("{n}").len() as c_int
}
