//! A regular file read through a window mapped into memory.
//!
//! `read` copies every byte from the page cache into a buffer, and on a
//! capture of small frames that copy is a quarter of `verify`'s time
//! (BENCHMARKS.md, "A mix of small frames"). A [`Window`] maps
//! [`WINDOW`] bytes of the file at a time instead, and the frames are
//! looked at where the page cache holds them. The window moves forward as
//! the reader consumes it, so the resident memory stays about one window,
//! whatever the file's size; and a file that grows while it is read (a
//! capture still being written) is read to its new end, as `read` would.
//!
//! A file cut short while a window over its end is mapped makes the next
//! access to the bytes that are gone raise SIGBUS. [`Window::new`] installs
//! a handler for it that says so and exits with status 2, the status of a
//! capture that could not be read to its end: no panic, no core dump, and
//! no file written (only `verify` and `pcap bench` map their input; `fix`
//! reads it).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::ptr::NonNull;
use std::sync::Once;

/// The bytes mapped at a time: 8 MiB, twice the largest block the reader
/// holds whole (`read::MAX_BLOCK`), so that a block always fits in one
/// window, and small enough to keep the resident memory low.
pub const WINDOW: usize = 8 << 20;

/// A window of a file mapped read-only into memory.
pub struct Window {
    file: File,
    /// The file's size as last seen.
    size: u64,
    /// The file offset of the window's first byte, a multiple of the page
    /// size.
    base: u64,
    /// The mapping, `None` for an empty window.
    map: Option<NonNull<u8>>,
    len: usize,
}

// SAFETY: the mapping is owned by the window alone (no other pointer to it
// is handed out but through `&self`), so moving the window to another
// thread moves all access to it.
unsafe impl Send for Window {}

impl Window {
    /// The first window of `file`, a regular file of `size` bytes; the
    /// file back if it cannot be mapped (some file systems cannot), to be
    /// read instead.
    pub fn new(file: File, size: u64) -> Result<Window, File> {
        static SIGBUS: Once = Once::new();
        SIGBUS.call_once(install_sigbus_handler);
        let len = usize::try_from(size).map_or(WINDOW, |size| size.min(WINDOW));
        match map(&file, 0, len) {
            Ok(map) => Ok(Window {
                file,
                size,
                base: 0,
                map,
                len,
            }),
            Err(_) => Err(file),
        }
    }

    /// The file offset of the window's first byte.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The bytes of the window.
    pub fn bytes(&self) -> &[u8] {
        match self.map {
            // SAFETY: `map` points to `len` bytes mapped readable by
            // `map_at`, unmapped only by the next `map_at` or `drop`, both
            // of which take `&mut self`. The bytes are the file's, and
            // another process may change them: every use of them here is
            // bounds-checked against the slice's length, which cannot
            // change, so a change makes a verdict wrong, as a change
            // between two `read` calls would, and nothing worse. A file
            // cut short makes the access raise SIGBUS, which the handler
            // turns into an exit (see the module's documentation).
            Some(map) => unsafe { std::slice::from_raw_parts(map.as_ptr(), self.len) },
            None => &[],
        }
    }

    /// Moves the window to start at the page that holds file offset `at`
    /// (at or after its base), holding at least `need` bytes from `at` if
    /// the file has them, and as many more as fit in [`WINDOW`]. The size
    /// of the file is looked up again when the window would reach its end,
    /// so that what was appended is read. `false` if the window holds no
    /// byte more than it did: the end of the file.
    pub fn advance(&mut self, at: u64, need: usize) -> io::Result<bool> {
        let page = page_size();
        let base = at - at % page;
        let lead = (at - base) as usize;
        let want = (lead + need).max(WINDOW).next_multiple_of(page as usize);
        if base + want as u64 > self.size {
            self.size = self.file.metadata()?.len();
        }
        let len = want.min(usize::try_from(self.size.saturating_sub(base)).unwrap_or(usize::MAX));
        if base + len as u64 <= self.base + self.len as u64 {
            return Ok(false);
        }
        self.map_at(base, len)?;
        Ok(true)
    }

    /// Maps `len` bytes of the file from `base`, a multiple of the page
    /// size, in place of the window mapped before.
    fn map_at(&mut self, base: u64, len: usize) -> io::Result<()> {
        self.unmap();
        self.map = map(&self.file, base, len)?;
        self.base = base;
        self.len = len;
        Ok(())
    }

    fn unmap(&mut self) {
        if let Some(map) = self.map.take() {
            // SAFETY: `map` and `len` are a mapping made by `map_at` and not
            // unmapped since; `take` forgets it, and no slice of it
            // outlives the `&self` it was borrowed through.
            unsafe { libc::munmap(map.as_ptr().cast(), self.len) };
        }
        self.len = 0;
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        self.unmap();
    }
}

/// A new read-only mapping of `len` bytes of `file` from `base`, a
/// multiple of the page size; `None` for 0 bytes.
fn map(file: &File, base: u64, len: usize) -> io::Result<Option<NonNull<u8>>> {
    if len == 0 {
        return Ok(None);
    }
    let offset = libc::off_t::try_from(base).map_err(io::Error::other)?;
    // SAFETY: a new read-only shared mapping of `len` bytes of an open
    // file, at an address the system chooses: no memory of ours is
    // touched. MAP_POPULATE maps the pages of the page cache at once,
    // rather than one fault at a time.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED | libc::MAP_POPULATE,
            file.as_raw_fd(),
            offset,
        )
    };
    if map == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(NonNull::new(map.cast()))
}

fn page_size() -> u64 {
    // SAFETY: sysconf reads a constant of the system.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(page).ok().filter(|&p| p > 0).unwrap_or(4096)
}

/// Makes SIGBUS print what happened and exit with status 2.
fn install_sigbus_handler() {
    extern "C" fn on_sigbus(_: libc::c_int) {
        const MESSAGE: &[u8] =
            b"fastpath: error: a capture file was cut short while it was read (SIGBUS): the rest of it was not checked\n";
        // SAFETY: write and _exit are async-signal-safe, and MESSAGE is a
        // static byte string.
        unsafe {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            libc::_exit(2);
        }
    }
    // SAFETY: a zeroed sigaction is a valid one (no flags, an empty mask)
    // before its handler is set; sigaction reads it and installs a handler
    // that touches nothing of the program's state.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}
