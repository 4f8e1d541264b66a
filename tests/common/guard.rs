//! The tests' one guard-page buffer: bytes right before, or right after, an
//! inaccessible page, where a read or write past either end of a slice is a
//! segmentation fault.

/// Three pages mapped together, the first and the last inaccessible: a
/// slice at the end of the middle page ends right before a guard page, and
/// a slice at its start begins right after one.
pub struct GuardedPage {
    base: *mut u8,
    page: usize,
}

/// Where a slice sits in the accessible page of a [`GuardedPage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Starting this many bytes after the guard page below.
    After(usize),
    /// Ending this many bytes before the guard page above.
    Before(usize),
}

impl Side {
    /// Both sides at `gap` bytes from their guard page.
    pub fn both(gap: usize) -> [Side; 2] {
        [Side::After(gap), Side::Before(gap)]
    }

    /// The range of `len` bytes at this side of a page of `page` bytes.
    pub fn range(self, len: usize, page: usize) -> core::ops::Range<usize> {
        match self {
            Side::After(gap) => gap..gap + len,
            Side::Before(gap) => page - gap - len..page - gap,
        }
    }
}

impl GuardedPage {
    pub fn new() -> GuardedPage {
        // SAFETY: plain libc calls; the results are checked.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
            let base = libc::mmap(
                core::ptr::null_mut(),
                3 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(base, libc::MAP_FAILED, "mmap failed");
            let base = base.cast::<u8>();
            assert_eq!(libc::mprotect(base.cast(), page, libc::PROT_NONE), 0);
            assert_eq!(
                libc::mprotect(base.add(2 * page).cast(), page, libc::PROT_NONE),
                0
            );
            GuardedPage { base, page }
        }
    }

    /// The accessible page.
    pub fn page(&self) -> &[u8] {
        // SAFETY: the middle page is mapped readable and owned by `self`.
        unsafe { core::slice::from_raw_parts(self.base.add(self.page), self.page) }
    }

    /// The accessible page, writable.
    pub fn page_mut(&mut self) -> &mut [u8] {
        // SAFETY: the middle page is mapped read-write and owned by `self`.
        unsafe { core::slice::from_raw_parts_mut(self.base.add(self.page), self.page) }
    }
}

impl Drop for GuardedPage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`.
        unsafe {
            libc::munmap(self.base.cast(), 3 * self.page);
        }
    }
}
