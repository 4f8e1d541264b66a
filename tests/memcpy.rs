//! The packet copy (`fastpath::copy`, `copy_uninit`) and every tier's copy
//! kernel, against `copy_from_slice`, at every length, alignment and pair
//! of source and destination offsets, fenced by guard pages.

mod common;

use std::mem::MaybeUninit;

use common::{Implementation, Operands, Primitive};

/// The copy: every table's copy kernel, `fastpath::copy` and
/// `fastpath::copy_uninit`, against `copy_from_slice`.
struct PacketCopy;

// Beyond every pair of offsets, the diagonal (the default): the kernels
// store aligned to the destination, so what matters is the source's offset
// from it, which the diagonal takes through every value.
impl Primitive for PacketCopy {
    const OPERANDS: Operands = Operands::Both;
    /// In and out of the caches, past the hand-off to the C library's
    /// `memcpy`.
    const LONG_LENGTHS: &'static [usize] = &[4096, 9000, 65_536 + 7, (1 << 20) + 3, (4 << 20) + 14];

    fn reference(dst: &mut [u8], src: &[u8], _: u8) -> u16 {
        dst.copy_from_slice(src);
        0
    }

    fn implementations() -> Vec<Implementation> {
        let mut implementations = Implementation::tables(|kernels, dst, src, _| {
            kernels.copy(dst, src);
            0
        });
        implementations.push(Implementation::new(
            common::public("copy"),
            |dst, src, _| {
                fastpath::copy(dst, src);
                0
            },
        ));
        implementations.push(Implementation::new(
            common::public("copy_uninit"),
            |dst, src, _| {
                fastpath::copy_uninit(common::uninit(dst), src);
                0
            },
        ));
        implementations
    }
}

common::primitive_tests!(copy: PacketCopy);

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn length_mismatch_panics() {
    fastpath::copy(&mut [0u8; 3], &[1, 2]);
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn length_mismatch_panics_long() {
    fastpath::copy(&mut [0u8; 300], &[1; 299]);
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn length_mismatch_panics_uninit() {
    let _ = fastpath::copy_uninit(&mut [MaybeUninit::uninit(); 3], &[1, 2]);
}

#[test]
fn kernels_of_every_table_panic_on_mismatch() {
    for kernels in fastpath::arch::variants() {
        let result = std::panic::catch_unwind(|| kernels.copy(&mut [0u8; 100], &[1; 101]));
        assert!(result.is_err(), "{}", kernels.name());
    }
}

/// A length mismatch is reported at the caller's line, as
/// `copy_from_slice` reports it.
#[test]
fn length_mismatch_names_the_caller() {
    use std::sync::Mutex;
    static FILES: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let previous = std::panic::take_hook();
    let this = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        // Other tests may panic meanwhile, on their own threads.
        if let (true, Some(location)) = (std::thread::current().id() == this, info.location()) {
            FILES.lock().unwrap().push(location.file().to_owned());
        }
    }));
    for len in [3, 300] {
        let src = vec![1u8; len - 1];
        assert!(std::panic::catch_unwind(|| fastpath::copy(&mut vec![0u8; len], &src)).is_err());
        assert!(
            std::panic::catch_unwind(|| {
                let _ = fastpath::copy_uninit(&mut vec![MaybeUninit::uninit(); len], &src);
            })
            .is_err()
        );
    }
    std::panic::set_hook(previous);
    let files = FILES.lock().unwrap();
    assert_eq!(files.len(), 4, "{files:?}");
    assert!(files.iter().all(|f| f.ends_with("memcpy.rs")), "{files:?}");
}
