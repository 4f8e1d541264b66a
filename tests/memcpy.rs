//! The packet copy (`fastpath::copy`, `copy_uninit`) and every tier's copy
//! kernel, against `copy_from_slice`, at every length, alignment and pair
//! of source and destination offsets, fenced by guard pages.

mod common;

use std::mem::MaybeUninit;

use common::random_bytes;

/// Filler of the destination's buffer around the destination, which must
/// survive.
const CANARY: u8 = 0xa5;

/// A copy implementation: copies `src` into `dst`, of the same length.
type Copy = Box<dyn Fn(&mut [MaybeUninit<u8>], &[u8])>;

/// Every kernel table of [`common::variants`], named, then the public
/// `copy` and `copy_uninit`.
fn copies() -> Vec<(String, Copy)> {
    let mut copies: Vec<(String, Copy)> = common::variants()
        .map(|kernels| -> (String, Copy) {
            let copy = move |dst: &mut [MaybeUninit<u8>], src: &[u8]| {
                kernels.copy_uninit(dst, src);
            };
            (kernels.name().to_owned(), Box::new(copy))
        })
        .collect();
    let tier = fastpath::active_tier();
    copies.push((
        format!("fastpath::copy (dispatch: {tier})"),
        Box::new(|dst, src| fastpath::copy(init(dst), src)),
    ));
    copies.push((
        format!("fastpath::copy_uninit (dispatch: {tier})"),
        Box::new(|dst, src| {
            fastpath::copy_uninit(dst, src);
        }),
    ));
    copies
}

/// Views bytes the tests initialized as possibly uninitialized ones.
fn uninit(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: same layout; the copies only write initialized bytes.
    unsafe { &mut *(bytes as *mut [u8] as *mut [MaybeUninit<u8>]) }
}

/// The reverse of [`uninit`], for the public `copy`: the tests' buffers are
/// always initialized.
fn init(bytes: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: every buffer the tests pass is initialized (canaries).
    unsafe { &mut *(bytes as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

/// Copies `len` bytes from `src_offset` of `source` to `dst_offset` of a
/// canary-filled buffer and checks the copy and the canaries.
fn check(name: &str, copy: &Copy, source: &[u8], src_offset: usize, dst_offset: usize, len: usize) {
    let src = &source[src_offset..src_offset + len];
    let mut out = vec![CANARY; dst_offset + len + 64];
    copy(uninit(&mut out[dst_offset..dst_offset + len]), src);
    let what = || format!("{name}: length {len}, offsets {src_offset}/{dst_offset}");
    assert_eq!(&out[dst_offset..dst_offset + len], src, "{}", what());
    assert!(
        out[..dst_offset]
            .iter()
            .chain(&out[dst_offset + len..])
            .all(|&b| b == CANARY),
        "{}: a byte outside the destination changed",
        what()
    );
}

/// Every length 0..=1100 at every source offset 0..=63; every destination
/// offset up to 300 bytes, and beyond it the destination offset
/// `(src_offset + len) % 64`, so that every 64 consecutive lengths see
/// every pair of offsets modulo 64.
#[test]
fn every_length_and_offset_pair() {
    let source = random_bytes(1100 + 64, 31);
    for (name, copy) in copies() {
        for len in 0..=1100 {
            for src_offset in 0..64 {
                if len <= 300 {
                    for dst_offset in 0..64 {
                        check(&name, &copy, &source, src_offset, dst_offset, len);
                    }
                } else {
                    let dst_offset = (src_offset + len) % 64;
                    check(&name, &copy, &source, src_offset, dst_offset, len);
                }
            }
        }
    }
}

/// Long copies, in and out of the caches, at a misaligned destination.
#[test]
fn long_copies() {
    for len in [4096, 9000, 65_536 + 7, (1 << 20) + 3, (4 << 20) + 14] {
        let source = random_bytes(len + 1, len as u64);
        for (name, copy) in copies() {
            check(&name, &copy, &source, 1, 14, len);
        }
    }
}

/// No copy reads or writes outside its slices: source and destination
/// placed right before, and right after, an inaccessible page.
#[cfg(unix)]
#[test]
fn guard_pages() {
    let mut src_page = common::GuardedPage::new();
    let mut dst_page = common::GuardedPage::new();
    let fill = random_bytes(src_page.page_mut().len(), 5);
    src_page.page_mut().copy_from_slice(&fill);
    let lengths = (0..=600).chain((601..=2100).step_by(7));
    for (name, copy) in copies() {
        for len in lengths.clone() {
            for gap in [0, 1, 14, 63] {
                for (src_after, dst_after) in
                    [(false, false), (false, true), (true, false), (true, true)]
                {
                    let src = src_page.next_to_guard(src_after, len, gap);
                    let dst = dst_page.next_to_guard(dst_after, len, gap);
                    copy(uninit(dst), src);
                    assert_eq!(dst, src, "{name}: {len} bytes, gap {gap}");
                }
            }
        }
    }
}

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
