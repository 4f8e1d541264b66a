//! The data the implementations work on: random bytes from a fixed seed in
//! page-aligned buffers, a block of each row's size at the row's alignment,
//! and for rows of random calls, their table of (offset, length).

use crate::results::{Alignment, Case, Lengths};

/// The data one call works on; every implementation gets the same.
pub struct Block<'a> {
    /// The input: random bytes from a fixed seed.
    pub src: &'a [u8],
    /// An output of the same length and alignment, for primitives that write.
    #[allow(dead_code)] // for the copy and fill primitives
    pub dst: &'a mut [u8],
    /// For a row of random calls, the calls, each on its own part of `src`
    /// and `dst` (both then the whole region); empty otherwise.
    pub calls: &'a [Call],
    /// The index in `calls` of the next call to make: each sample goes on
    /// where the one before it (of whichever implementation) stopped, see
    /// [`next_calls`].
    pub next: usize,
}

/// Makes `count` calls of `block`'s table with `call`, from its
/// [`next`](Block::next) call on, cycling, and leaves `next` after them;
/// `call` gets the source and destination regions and the call.
///
/// Samples go on where the one before stopped, rather than all starting at
/// the table's first call: an implementation then never replays a sequence
/// of lengths the branch predictor has just seen, which it learns. With
/// every sample from the first call, a kernel that ran right after the same
/// kernel (the AVX-512 table and its VNNI variant share their copy) measured
/// 1.45-1.73× glibc's speed on random 0-256 byte copies, and 0.93-0.98× in
/// the other column (Zen 4). Every implementation still sees the same table,
/// all of it over a run.
///
/// The regions are passed in registers, not read from `block` on every
/// call, and so are the fixed rows' blocks in the timing loops: the empty
/// `asm!` blocks that hide them from the optimizer may write memory, for
/// all it knows, so a `block` field would be loaded again after each, one
/// more access in the loop, and one that would wait for the stores before
/// it wherever its address shares their low 12 bits (see
/// [`DST_PAGE_OFFSET`]).
#[inline(always)]
pub fn next_calls(block: &mut Block<'_>, count: u64, mut call: impl FnMut(&[u8], &mut [u8], Call)) {
    let (src, dst, calls): (&[u8], &mut [u8], &[Call]) = (block.src, &mut *block.dst, block.calls);
    let mut left = count as usize;
    let mut next = block.next;
    while left > 0 {
        if next >= calls.len() {
            next = 0;
        }
        let end = calls.len().min(next + left);
        for &c in &calls[next..end] {
            call(src, &mut *dst, c);
        }
        left -= end - next;
        next = end;
    }
    block.next = next;
}

/// How many calls of `block`'s table, from its next one, a sample of an
/// implementation called as applications call it is preceded by, untimed
/// ([`Kernel::prepare`](super::primitive::Kernel::prepare)): the calls
/// whose lengths (each counted one more, so that empty calls count) add up
/// to twice the region, at most the whole table. An application that fills
/// or copies over and over finds its buffers in the caches, where its
/// previous calls left them, not where the rows before it in the round (the
/// 1 and 64 MiB rows among them) left them. The calls of the sample itself
/// are read into the caches by the harness (`harness::touch_calls`).
pub fn warm_up_calls(block: &Block<'_>) -> u64 {
    let region = block.dst.len();
    let mut bytes = 0;
    upcoming_calls(block)
        .take_while(|call| {
            let before = bytes;
            bytes += call.len as usize + 1;
            before < 2 * region
        })
        .count() as u64
}

/// The calls of `block`'s table in the order [`next_calls`] makes them,
/// from its [`next`](Block::next) call on, each once.
pub fn upcoming_calls<'b>(block: &'b Block<'_>) -> impl Iterator<Item = &'b Call> {
    let (made, to_make) = block.calls.split_at(block.next.min(block.calls.len()));
    to_make.iter().chain(made)
}

/// One call of a row of random calls: `len` bytes at `offset` into the row's
/// region (of the destination, and of the source unless `src_offset` says
/// otherwise).
#[derive(Clone, Copy)]
pub struct Call {
    pub offset: u32,
    pub len: u32,
    /// The offset in the source region: `offset`, but in `Window` rows.
    pub src_offset: u32,
}

/// The calls of a random row start anywhere in the first this many bytes of
/// its region (a page, so random modulo 64 and across page boundaries).
const RANDOM_SPAN: usize = 4096;

/// The calls of a `Window` row start anywhere in the first this many bytes
/// of its region, each at its own offset in the source and in the
/// destination: an application's buffers, spread over more than a page.
pub const WINDOW: usize = 32 << 10;

impl Lengths {
    /// The bytes over which a row's calls start.
    fn span(self) -> usize {
        match self {
            Lengths::Uniform | Lengths::LogUniform => RANDOM_SPAN,
            Lengths::Window => WINDOW,
        }
    }
}

/// Calls in a random row's table: more than one sample makes (about 26 000
/// of the shortest), so that no sample repeats a sequence the branch
/// predictor could learn. One table per row, from a fixed seed, for every
/// implementation.
const RANDOM_CALLS: usize = 1 << 16;

/// The table of a random row: offsets uniform in `0..RANDOM_SPAN` (in
/// `0..WINDOW`, and another one for the source, for `Window` rows), lengths
/// drawn as `lengths` says up to `size`, so every call fits in a region of
/// `size` + that span bytes.
pub fn random_calls(lengths: Lengths, size: usize) -> Vec<Call> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d ^ size as u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    (0..RANDOM_CALLS)
        .map(|_| {
            let offset = (next() % lengths.span() as u64) as u32;
            let src_offset = match lengths {
                Lengths::Window => (next() % WINDOW as u64) as u32,
                Lengths::Uniform | Lengths::LogUniform => offset,
            };
            let len = match lengths {
                Lengths::Uniform | Lengths::Window => next() % (size as u64 + 1),
                Lengths::LogUniform => {
                    let unit = (next() >> 11) as f64 / (1u64 << 53) as f64;
                    ((unit * ((size + 1) as f64).ln()).exp() as u64).clamp(1, size as u64)
                }
            };
            Call {
                offset,
                len: len as u32,
                src_offset,
            }
        })
        .collect()
}

impl Alignment {
    /// Bytes past a 64-byte boundary, for the source.
    pub fn src_offset(self) -> usize {
        match self {
            Alignment::Aligned | Alignment::Random(_) => 0,
            Alignment::Unaligned { .. } => 1,
            Alignment::Offsets { src, .. } => src.into(),
            Alignment::Near { .. } => 0,
        }
    }

    /// Bytes past a 64-byte boundary, for the destination (which starts
    /// [`DST_PAGE_OFFSET`] further into its page than that).
    pub fn dst_offset(self) -> usize {
        match self {
            Alignment::Aligned | Alignment::Random(_) => 0,
            Alignment::Unaligned { dst } | Alignment::Offsets { dst, .. } => dst.into(),
            Alignment::Near { dst } => dst.into(),
        }
    }

    /// Where the destination's block starts in its page: [`dst_offset`]
    /// bytes past [`DST_PAGE_OFFSET`], or past the page's start for
    /// [`Alignment::Near`] rows, whose source starts a page.
    ///
    /// [`dst_offset`]: Alignment::dst_offset
    pub fn dst_page_offset(self) -> usize {
        match self {
            Alignment::Near { .. } => self.dst_offset(),
            _ => DST_PAGE_OFFSET + self.dst_offset(),
        }
    }
}

impl Case {
    /// The bytes a buffer of this row needs past its page-aligned start,
    /// besides the offsets of fixed rows.
    pub fn region(&self) -> usize {
        match self.alignment {
            Alignment::Random(lengths) => self.size + lengths.span(),
            _ => self.size,
        }
    }
}

/// A buffer with room for a block of some size at either alignment.
pub struct AlignedBuffer {
    bytes: Vec<u8>,
}

/// Blocks start at this boundary, plus their offset: a page, so that the
/// source and the destination sit at chosen places within their pages.
const BOUNDARY: usize = 4096;

/// Where a destination block starts within its page, less its alignment
/// offset: half a page away from the source, so that the destination's
/// addresses never match the source's in their low 12 bits, which makes a
/// CPU's loads wait for unrelated stores ("4K aliasing") and slows every
/// copy, glibc's `memcpy` included, by up to 20 times.
pub const DST_PAGE_OFFSET: usize = 2048;

/// The most a block starts past [`BOUNDARY`].
const MAX_OFFSET: usize = DST_PAGE_OFFSET + 64;

impl AlignedBuffer {
    pub fn zeroed(size: usize) -> AlignedBuffer {
        AlignedBuffer {
            bytes: vec![0; size + BOUNDARY + MAX_OFFSET],
        }
    }

    /// Random bytes from a fixed seed: the same contents for every
    /// implementation, every run.
    pub fn random(size: usize) -> AlignedBuffer {
        AlignedBuffer {
            bytes: random_bytes(size + BOUNDARY + MAX_OFFSET),
        }
    }

    fn start(&self, offset: usize) -> usize {
        self.bytes.as_ptr().align_offset(BOUNDARY) + offset
    }

    /// `size` bytes starting `offset` bytes past a page boundary.
    pub fn block(&self, offset: usize, size: usize) -> &[u8] {
        let start = self.start(offset);
        &self.bytes[start..start + size]
    }

    pub fn block_mut(&mut self, offset: usize, size: usize) -> &mut [u8] {
        let start = self.start(offset);
        &mut self.bytes[start..start + size]
    }
}

/// `len` bytes from xorshift64* with a fixed seed.
pub fn random_bytes(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut bytes = Vec::with_capacity(len + 8);
    while bytes.len() < len {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        bytes.extend_from_slice(&state.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_calls_fit_their_region() {
        for (lengths, size) in [
            (Lengths::Uniform, 16),
            (Lengths::Uniform, 1024),
            (Lengths::LogUniform, 65536),
            (Lengths::Window, 1024),
        ] {
            let calls = random_calls(lengths, size);
            assert_eq!(calls.len(), RANDOM_CALLS);
            let case = Case {
                alignment: Alignment::Random(lengths),
                size,
            };
            for call in &calls {
                assert!((call.offset as usize) < lengths.span());
                assert!(call.len as usize <= size);
                for offset in [call.offset, call.src_offset] {
                    assert!(offset as usize + call.len as usize <= case.region());
                }
            }
            if lengths == Lengths::Window {
                // Over the window, the source apart from the destination.
                assert!(calls.iter().any(|c| c.offset as usize >= RANDOM_SPAN));
                assert!(calls.iter().any(|c| c.offset != c.src_offset));
            } else {
                assert!(calls.iter().all(|c| c.offset == c.src_offset));
            }
            let lens = || calls.iter().map(|c| c.len as usize);
            let (min, max) = (lens().min().unwrap(), lens().max().unwrap());
            match lengths {
                Lengths::Uniform | Lengths::Window => assert_eq!((min, max), (0, size)),
                Lengths::LogUniform => assert!(min == 1 && max > size / 2),
            }
            // Near the distribution's mean, which the per-byte column uses.
            let mean = lens().sum::<usize>() as f64 / calls.len() as f64;
            assert!((mean / case.mean_size() - 1.0).abs() < 0.05, "{mean}");
            // The same table every time.
            let again = random_calls(lengths, size);
            assert!(
                calls
                    .iter()
                    .zip(&again)
                    .all(|(a, b)| (a.offset, a.len) == (b.offset, b.len))
            );
        }
    }

    #[test]
    fn blocks_start_where_they_should() {
        let buffer = AlignedBuffer::random(100);
        let aligned = buffer.block(Alignment::Aligned.src_offset(), 100);
        let unaligned = Alignment::Unaligned { dst: 3 };
        let offsets = Alignment::Offsets { src: 14, dst: 0 };
        let unaligned_src = buffer.block(unaligned.src_offset(), 100);
        assert_eq!(aligned.as_ptr() as usize % BOUNDARY, 0);
        assert_eq!(unaligned_src.as_ptr() as usize % BOUNDARY, 1);
        let offset_src = buffer.block(offsets.src_offset(), 100);
        assert_eq!(offset_src.as_ptr() as usize % BOUNDARY, 14);
        assert_eq!(offsets.dst_offset(), 0);
        let mut dst = AlignedBuffer::zeroed(100);
        let dst = dst.block_mut(DST_PAGE_OFFSET + unaligned.dst_offset(), 100);
        assert_eq!(dst.as_ptr() as usize % BOUNDARY, 2048 + 3);
        assert_eq!(aligned.len(), 100);
        assert_eq!(unaligned_src.len(), 100);
        // The same contents every time.
        assert_eq!(random_bytes(100), random_bytes(100));
        assert_eq!(&buffer.bytes[..], &random_bytes(buffer.bytes.len())[..]);
    }
}
