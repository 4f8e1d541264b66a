//! One runner for every primitive: each implementation (every kernel table
//! of [`super::variants`], constructed directly, and the public entry
//! points) against the primitive's plain reference, over every length and
//! alignment, long lengths, guard pages and random cases.
//!
//! A primitive is described once ([`Primitive`]): what it reads and writes,
//! its reference, its implementations. A [`Case`] places a source and a
//! destination (at an offset from a 64-byte boundary, or next to a guard
//! page) and the runner checks, for every implementation, the returned
//! value and every byte of the destination and of the 64 bytes around it
//! against the reference's on the same bytes. The sweeps below generate the
//! cases; [`super::primitive_tests!`] stamps them into a primitive's test
//! file.

use std::marker::PhantomData;
use std::ops::Range;

use fastpath::arch::Kernels;

use super::Rng;
#[cfg(unix)]
use super::guard::{GuardedPage, Side};

/// Every length up to this one is tested at every offset: past 16 AVX-512
/// vectors (1024 bytes), where the fill's loop over lines starts, by
/// enough lines for every count left over after its blocks of four (the
/// other kernels' loops start sooner).
pub const EVERY_LENGTH: usize = 1300;

/// Up to this length, every pair of source and destination offsets is
/// tested (64 × 64); beyond it, every source offset with the destination
/// offsets of [`Primitive::DESTINATIONS`].
pub const EVERY_PAIR: usize = 300;

/// The destination offsets tested with each source offset beyond
/// [`EVERY_PAIR`].
#[derive(Clone, Copy, Debug)]
pub enum Destinations {
    /// `(source offset + length) % 64`, so that every 64 consecutive
    /// lengths see every pair of offsets modulo 64.
    Diagonal,
    /// These offsets.
    Offsets(&'static [usize]),
}

/// The offsets of the long lengths, of a single operand: aligned, odd,
/// and mid-line.
pub const LONG_OFFSETS: [usize; 3] = [0, 1, 33];

/// The (source, destination) offsets of the long lengths with two
/// operands: both odd, two bytes apart; and the destination 14 bytes into
/// a line, as a packet behind an Ethernet header.
pub const LONG_PAIRS: [(usize, usize); 2] = [(1, 3), (1, 14)];

/// The gaps between an operand and its guard page when the primitive has
/// two operands (and four ways to place them): no gap, a few bytes, and
/// either side of a half line. With one operand, every gap 0..=63.
pub const GUARD_GAPS: [usize; 7] = [0, 1, 2, 3, 14, 31, 63];

/// The guard-page lengths: every one up to [`EVERY_LENGTH`], then every
/// seventh up to past the 2 KiB where `fastpath::copy` hands long copies
/// to the C library.
pub fn guard_lengths() -> impl Iterator<Item = usize> {
    (0..=EVERY_LENGTH).chain((EVERY_LENGTH + 1..=2100).step_by(7))
}

/// Random cases per primitive.
pub const RANDOM_CASES: usize = 2000;

/// Bytes of canary (and of margin in the destination's buffer) checked on
/// each side of the destination.
const MARGIN: usize = 64;

/// The seeds of the random source data and of the canaries.
const SOURCE_SEED: u64 = 1;
const CANARY_SEED: u64 = 2;
const RANDOM_SEED: u64 = 3;

/// What a primitive reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    /// A source, as the checksum reads it.
    Source,
    /// A destination, as a fill writes it.
    Destination,
    /// A source copied into a destination of the same length.
    Both,
}

impl Operands {
    fn reads(self) -> bool {
        self != Operands::Destination
    }

    fn writes(self) -> bool {
        self != Operands::Source
    }
}

/// The bytes of a source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Random bytes: a position's byte depends on its distance from the
    /// start of the buffer only.
    Random,
    /// All 0x00: where the two zeros of ones'-complement arithmetic differ.
    Zeros,
    /// All 0xff: the largest words, where narrow accumulators overflow.
    Ones,
}

impl Pattern {
    fn fill(self, bytes: &mut [u8]) {
        match self {
            Pattern::Random => Rng::new(SOURCE_SEED).fill(bytes),
            Pattern::Zeros => bytes.fill(0),
            Pattern::Ones => bytes.fill(0xff),
        }
    }
}

/// Where an operand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// This many bytes into a buffer that starts on a 64-byte boundary
    /// (for a destination, past the canaries before it).
    Offset(usize),
    /// Next to a guard page.
    #[cfg(unix)]
    Guard(Side),
}

/// One call of every implementation: `len` bytes of `pattern` at `src`,
/// into `dst`, with `value` (the byte a fill writes). The places of an
/// operand the primitive lacks are ignored.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub pattern: Pattern,
    pub len: usize,
    pub src: Place,
    pub dst: Place,
    pub value: u8,
}

/// An implementation of a primitive under test: its name, and a call as
/// `(destination, source, value) -> result`, with an empty slice for an
/// operand the primitive lacks and 0 for a result it lacks.
pub struct Implementation {
    pub name: String,
    call: Box<Call>,
}

/// A call of an implementation: `(destination, source, value) -> result`.
type Call = dyn Fn(&mut [u8], &[u8], u8) -> u16;

impl Implementation {
    pub fn new(
        name: impl Into<String>,
        call: impl Fn(&mut [u8], &[u8], u8) -> u16 + 'static,
    ) -> Implementation {
        Implementation {
            name: name.into(),
            call: Box::new(call),
        }
    }

    /// One implementation per kernel table of [`super::variants`], named
    /// after the table, calling it through `call`.
    pub fn tables(call: fn(&Kernels, &mut [u8], &[u8], u8) -> u16) -> Vec<Implementation> {
        super::variants()
            .map(|kernels| {
                Implementation::new(kernels.name(), move |dst, src, value| {
                    call(kernels, dst, src, value)
                })
            })
            .collect()
    }

    pub fn call(&self, dst: &mut [u8], src: &[u8], value: u8) -> u16 {
        (self.call)(dst, src, value)
    }
}

/// A primitive under test.
pub trait Primitive {
    /// What it reads and writes.
    const OPERANDS: Operands;
    /// The sources the sweeps read: random bytes, and where the result
    /// depends on the bytes' values (a sum), all 0x00 and all 0xff too.
    const PATTERNS: &'static [Pattern] = &[Pattern::Random];
    /// The values tested at every length and offset (a fill's byte); the
    /// first is the one of the long lengths and the guard pages.
    const VALUES: &'static [u8] = &[0];
    /// The lengths past [`EVERY_LENGTH`] where its kernels change what
    /// they do, and their neighbours.
    const LONG_LENGTHS: &'static [usize];
    /// With two operands, the destination offsets tested with each source
    /// offset beyond [`EVERY_PAIR`].
    const DESTINATIONS: Destinations = Destinations::Diagonal;

    /// The plain reference: `(destination, source, value) -> result`, as
    /// [`Implementation::call`]. What it writes and returns depends on the
    /// source and the value only, not on the destination's bytes before.
    fn reference(dst: &mut [u8], src: &[u8], value: u8) -> u16;

    /// Every implementation to test.
    fn implementations() -> Vec<Implementation>;
}

/// Every length 0..=[`EVERY_LENGTH`] at every offset 0..=63 of each
/// operand, from each pattern, with each value. With two operands, the
/// first pattern (random bytes) at every pair of offsets up to
/// [`EVERY_PAIR`] and at [`Primitive::DESTINATIONS`] beyond; the others,
/// which test the arithmetic rather than the alignments, at the diagonal
/// `(source offset + length) % 64` only.
pub fn every_length_and_offset<P: Primitive>() {
    let mut runner = Runner::<P>::new();
    for (index, &pattern) in P::PATTERNS.iter().enumerate() {
        for len in 0..=EVERY_LENGTH {
            for &value in P::VALUES {
                let cases: Vec<Case> = offsets::<P>(len, index == 0)
                    .into_iter()
                    .map(|(src, dst)| Case {
                        pattern,
                        len,
                        src: Place::Offset(src),
                        dst: Place::Offset(dst),
                        value,
                    })
                    .collect();
                runner.run(&cases);
            }
        }
    }
}

/// The (source, destination) offsets of a length in
/// [`every_length_and_offset`]: with two operands, every pair or a sample
/// of them (`pairs`), or the diagonal only.
fn offsets<P: Primitive>(len: usize, pairs: bool) -> Vec<(usize, usize)> {
    let destinations = match P::DESTINATIONS {
        _ if !pairs => Destinations::Diagonal,
        destinations => destinations,
    };
    match P::OPERANDS {
        Operands::Source => (0..64).map(|src| (src, 0)).collect(),
        Operands::Destination => (0..64).map(|dst| (0, dst)).collect(),
        Operands::Both if pairs && len <= EVERY_PAIR => (0..64)
            .flat_map(|src| (0..64).map(move |dst| (src, dst)))
            .collect(),
        Operands::Both => match destinations {
            Destinations::Diagonal => (0..64).map(|src| (src, (src + len) % 64)).collect(),
            Destinations::Offsets(offsets) => (0..64)
                .flat_map(|src| offsets.iter().map(move |&dst| (src, dst)))
                .collect(),
        },
    }
}

/// [`Primitive::LONG_LENGTHS`] at [`LONG_OFFSETS`] (or [`LONG_PAIRS`]),
/// from each pattern but all 0x00, whose sum is 0 at every length: the
/// short lengths test it.
pub fn long_lengths<P: Primitive>() {
    let mut runner = Runner::<P>::new();
    let places: Vec<(usize, usize)> = match P::OPERANDS {
        Operands::Source => LONG_OFFSETS.map(|src| (src, 0)).to_vec(),
        Operands::Destination => LONG_OFFSETS.map(|dst| (0, dst)).to_vec(),
        Operands::Both => LONG_PAIRS.to_vec(),
    };
    for &len in P::LONG_LENGTHS {
        for &pattern in P::PATTERNS.iter().filter(|&&p| p != Pattern::Zeros) {
            let cases: Vec<Case> = places
                .iter()
                .map(|&(src, dst)| Case {
                    pattern,
                    len,
                    src: Place::Offset(src),
                    dst: Place::Offset(dst),
                    value: P::VALUES[0],
                })
                .collect();
            runner.run(&cases);
        }
    }
}

/// No implementation reads or writes outside its slices: each operand right
/// after, and right before, an inaccessible page (in every combination),
/// at every gap 0..=63 from it (at [`GUARD_GAPS`] with two operands), at
/// every length of [`guard_lengths`]. A stray access is a segmentation
/// fault.
#[cfg(unix)]
pub fn guard_pages<P: Primitive>() {
    let mut runner = Runner::<P>::new();
    let gaps: Vec<usize> = match P::OPERANDS {
        Operands::Both => GUARD_GAPS.to_vec(),
        Operands::Source | Operands::Destination => (0..64).collect(),
    };
    // One side only for an operand the primitive lacks.
    let sides = |used: bool, gap: usize| {
        let sides = Side::both(gap);
        if used {
            sides.to_vec()
        } else {
            sides[..1].to_vec()
        }
    };
    for len in guard_lengths() {
        let mut cases = Vec::new();
        for &gap in &gaps {
            for src in sides(P::OPERANDS.reads(), gap) {
                for dst in sides(P::OPERANDS.writes(), gap) {
                    cases.push(Case {
                        pattern: Pattern::Random,
                        len,
                        src: Place::Guard(src),
                        dst: Place::Guard(dst),
                        value: P::VALUES[0],
                    });
                }
            }
        }
        runner.run(&cases);
    }
}

/// [`RANDOM_CASES`] random cases: mostly short lengths, a quarter up to
/// 5000 bytes and a quarter up to 16 000; the source anywhere in 64 KiB of
/// random bytes (so that each case reads different data), the destination
/// at any of 4000 offsets, any value.
pub fn random<P: Primitive>() {
    let mut rng = Rng::new(RANDOM_SEED);
    let cases: Vec<Case> = (0..RANDOM_CASES)
        .map(|_| {
            let len = match rng.below(4) {
                0 => rng.below(16_000),
                1 => rng.below(5000),
                _ => rng.below(300),
            };
            Case {
                pattern: Pattern::Random,
                len,
                src: Place::Offset(rng.below(64 << 10)),
                dst: Place::Offset(rng.below(4000)),
                value: rng.byte(),
            }
        })
        .collect();
    Runner::<P>::new().run(&cases);
}

/// Runs cases of one primitive: the implementations, and the buffers the
/// cases' operands are placed in, kept from run to run.
pub struct Runner<P> {
    implementations: Vec<Implementation>,
    /// A source buffer per pattern, 64-byte aligned.
    sources: Vec<(Pattern, Aligned)>,
    /// The destinations' buffer (64-byte aligned), and the canaries it is
    /// reset to.
    dst: Aligned,
    canaries: Vec<u8>,
    #[cfg(unix)]
    guarded: Guarded,
    /// The reference's destinations for the cases of a run, one after the
    /// other.
    expected: Vec<u8>,
    primitive: PhantomData<P>,
}

/// What the reference's result and destination depend on: the source's
/// pattern and place (if the primitive reads one), the length, the value.
type Key = (Option<(Pattern, Place)>, usize, u8);

/// The guard pages: the source's, with the pattern it holds, and the
/// destination's, with its canaries.
#[cfg(unix)]
struct Guarded {
    src: GuardedPage,
    pattern: Option<Pattern>,
    dst: GuardedPage,
    canaries: Vec<u8>,
}

impl<P: Primitive> Default for Runner<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P: Primitive> Runner<P> {
    pub fn new() -> Runner<P> {
        Runner {
            implementations: P::implementations(),
            sources: Vec::new(),
            dst: Aligned::default(),
            canaries: Vec::new(),
            #[cfg(unix)]
            guarded: {
                let dst = GuardedPage::new();
                let mut canaries = vec![0; dst.page().len()];
                Rng::new(CANARY_SEED).fill(&mut canaries);
                Guarded {
                    src: GuardedPage::new(),
                    pattern: None,
                    dst,
                    canaries,
                }
            },
            expected: Vec::new(),
            primitive: PhantomData,
        }
    }

    /// Calls every implementation on each of `cases` and checks each
    /// result, and each destination with the bytes around it, against the
    /// reference's. The reference runs once per case (once for consecutive
    /// cases that differ only in the destination's place, on which its
    /// results do not depend); each implementation then runs all the cases
    /// in turn, as a caller that calls one function many times would, not
    /// alternating with the others.
    ///
    /// The sources of the cases next to a guard page must all be of one
    /// pattern.
    pub fn run(&mut self, cases: &[Case]) {
        let (reads, writes) = (P::OPERANDS.reads(), P::OPERANDS.writes());
        for case in cases {
            if reads {
                self.source(case);
            }
            if let (true, Place::Offset(offset)) = (writes, case.dst) {
                self.destination(2 * MARGIN + offset + case.len);
            }
        }
        let Runner {
            implementations,
            sources,
            dst,
            canaries,
            #[cfg(unix)]
            guarded,
            expected,
            ..
        } = self;
        let source = |case: &Case| -> &[u8] {
            match case.src {
                _ if !reads => &[],
                Place::Offset(offset) => {
                    let (_, buffer) = sources.iter().find(|(p, _)| *p == case.pattern).unwrap();
                    &buffer.as_slice()[offset..offset + case.len]
                }
                #[cfg(unix)]
                Place::Guard(side) => {
                    let page = guarded.src.page();
                    &page[side.range(case.len, page.len())]
                }
            }
        };

        // The reference's result and destination for each case.
        expected.clear();
        let mut wants: Vec<(u16, Range<usize>)> = Vec::with_capacity(cases.len());
        let mut last: Option<Key> = None;
        for case in cases {
            let key = (
                reads.then_some((case.pattern, case.src)),
                case.len,
                case.value,
            );
            if last != Some(key) {
                let start = expected.len();
                expected.resize(start + if writes { case.len } else { 0 }, 0);
                let want = P::reference(&mut expected[start..], source(case), case.value);
                wants.push((want, start..expected.len()));
                last = Some(key);
            } else {
                wants.push(wants.last().unwrap().clone());
            }
        }

        for implementation in implementations.iter() {
            for (case, (want, bytes)) in cases.iter().zip(&wants) {
                let src = source(case);
                if !writes {
                    let result = implementation.call(&mut [], src, case.value);
                    if result != *want {
                        fail(implementation, case, result, *want, None);
                    }
                    continue;
                }
                // The destination's buffer and its canaries; the
                // destination and the bytes checked around it.
                let (buffer, canaries, region, frame) = match case.dst {
                    Place::Offset(offset) => {
                        let region = MARGIN + offset..MARGIN + offset + case.len;
                        let frame = offset..region.end + MARGIN;
                        (dst.as_mut_slice(), &canaries[..], region, frame)
                    }
                    #[cfg(unix)]
                    Place::Guard(side) => {
                        let page = guarded.canaries.len();
                        let region = side.range(case.len, page);
                        let frame =
                            region.start.saturating_sub(MARGIN)..(region.end + MARGIN).min(page);
                        (guarded.dst.page_mut(), &guarded.canaries[..], region, frame)
                    }
                };
                buffer[frame.clone()].copy_from_slice(&canaries[frame.clone()]);
                let result = implementation.call(&mut buffer[region.clone()], src, case.value);
                let (before, after) = (frame.start..region.start, region.end..frame.end);
                if result != *want
                    || buffer[region.clone()] != expected[bytes.clone()]
                    || buffer[before.clone()] != canaries[before]
                    || buffer[after.clone()] != canaries[after]
                {
                    let want_byte = |i: usize| {
                        if region.contains(&i) {
                            expected[bytes.start + i - region.start]
                        } else {
                            canaries[i]
                        }
                    };
                    let first = frame
                        .clone()
                        .find(|&i| buffer[i] != want_byte(i))
                        .map(|i| (i as isize - region.start as isize, buffer[i], want_byte(i)));
                    fail(implementation, case, result, *want, first);
                }
            }
        }
    }

    /// Makes the source of `case` ready: its pattern in the buffer it is
    /// read from.
    fn source(&mut self, case: &Case) {
        match case.src {
            Place::Offset(offset) => {
                let end = offset + case.len;
                let index = match self.sources.iter().position(|(p, _)| *p == case.pattern) {
                    Some(index) => index,
                    None => {
                        self.sources.push((case.pattern, Aligned::default()));
                        self.sources.len() - 1
                    }
                };
                let (pattern, buffer) = &mut self.sources[index];
                if buffer.len() < end {
                    *buffer = Aligned::new(end.next_power_of_two());
                    pattern.fill(buffer.as_mut_slice());
                }
            }
            #[cfg(unix)]
            Place::Guard(_) => {
                let guarded = &mut self.guarded;
                if guarded.pattern != Some(case.pattern) {
                    case.pattern.fill(guarded.src.page_mut());
                    guarded.pattern = Some(case.pattern);
                }
            }
        }
    }

    /// Makes the destinations' buffer at least `len` bytes long.
    fn destination(&mut self, len: usize) {
        if self.dst.len() < len {
            let len = len.next_power_of_two();
            self.dst = Aligned::new(len);
            self.canaries = vec![0; len];
            Rng::new(CANARY_SEED).fill(&mut self.canaries);
        }
    }
}

/// Reports a failed case: the implementation, the case, the results, and
/// the first wrong byte of the destination (its index from the start of
/// the destination, what it held, what it should have).
fn fail(
    implementation: &Implementation,
    case: &Case,
    result: u16,
    expected: u16,
    first: Option<(isize, u8, u8)>,
) -> ! {
    let bytes = match first {
        Some((index, got, want)) => {
            format!("; byte {index} is {got:#04x}, expected {want:#04x}")
        }
        None => String::new(),
    };
    panic!(
        "{}: {case:?}: result {result:#06x}, expected {expected:#06x}{bytes}",
        implementation.name
    );
}

/// A buffer that starts on a 64-byte boundary.
#[derive(Default)]
struct Aligned {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl Aligned {
    fn new(len: usize) -> Aligned {
        let storage = vec![0; len + 63];
        let start = storage.as_ptr().align_offset(64);
        Aligned {
            storage,
            start,
            len,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn as_slice(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}
