//! What `fastpath bench` measures, as the report and the plot read it: the
//! rows (a block size at an alignment), the implementations' kinds, and the
//! estimates of every implementation on every row.

/// What an implementation is, for the summary and the JSON output.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One tier's kernel, called directly.
    Tier,
    /// The library's public entry point, which dispatches to the active tier.
    Dispatch,
    /// Another project's implementation, or the reference.
    Baseline,
    /// What the hardware allows with the active tier's vectors: a loop that
    /// only moves the bytes the primitive reads and writes, which every
    /// other implementation is measured against (its efficiency).
    Bound,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Tier => "tier",
            Kind::Dispatch => "dispatch",
            Kind::Baseline => "baseline",
            Kind::Bound => "bound",
        }
    }
}

/// How the lengths of a row of random calls are drawn, up to the row's size.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Lengths {
    /// Uniformly in `0..=size`.
    Uniform,
    /// Log-uniformly in `1..=size`: as many calls of 1-10 bytes as of 10-100.
    LogUniform,
    /// Uniformly in `0..=size`, at offsets over a window of 32 KiB rather
    /// than a page, and at other offsets in the source than in the
    /// destination: a mix as an application's buffers give it (the
    /// `Window` rows of the bench, `blocks::WINDOW`).
    Window,
}

/// Where a block starts relative to a 64-byte boundary (every offset below
/// 64).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Alignment {
    /// The source and the destination 64-byte aligned.
    Aligned,
    /// The source at +1 from a 64-byte boundary, the destination at `+dst`;
    /// named by the source's alone.
    Unaligned { dst: u8 },
    /// The source at `+src` and the destination at `+dst` from a 64-byte
    /// boundary, not both 0 (that row is [`Aligned`](Alignment::Aligned)),
    /// named by both: for the copy, where either may be the misaligned one.
    Offsets { src: u8, dst: u8 },
    /// The source at the start of a page and the destination `dst` bytes
    /// into another: the destination a few bytes past the source modulo
    /// the page, where some CPUs' `rep movsb` (AMD Zen 3, Zen 4) is many
    /// times slower. Every other fixed row keeps the two half a page apart.
    Near { dst: u8 },
    /// Random calls: offsets and lengths from a table (the bench's
    /// `Block::calls`).
    Random(Lengths),
}

impl Alignment {
    pub fn label(self) -> String {
        match self {
            Alignment::Aligned => "Aligned".to_owned(),
            Alignment::Unaligned { .. } => "Unaligned".to_owned(),
            Alignment::Offsets { src, dst } => format!("src+{src} dst+{dst}"),
            Alignment::Near { dst } => format!("dst {dst} past src"),
            Alignment::Random(Lengths::Uniform) => "Random uniform 0..=size".to_owned(),
            Alignment::Random(Lengths::LogUniform) => "Random log-uniform 1..=size".to_owned(),
            Alignment::Random(Lengths::Window) => "Random uniform 0..=size, 32 KiB".to_owned(),
        }
    }

    pub fn json_name(self) -> String {
        match self {
            Alignment::Aligned => "aligned".to_owned(),
            Alignment::Unaligned { .. } => "unaligned".to_owned(),
            Alignment::Offsets { src, dst } => format!("src{src}-dst{dst}"),
            Alignment::Near { dst } => format!("near-dst{dst}"),
            Alignment::Random(Lengths::Uniform) => "random-uniform".to_owned(),
            Alignment::Random(Lengths::LogUniform) => "random-log-uniform".to_owned(),
            Alignment::Random(Lengths::Window) => "random-window".to_owned(),
        }
    }

    /// Whether the row's blocks are fixed and start off a 64-byte boundary,
    /// the source's or the destination's: the rows the summary shows beside
    /// the random ones, and among which the plot draws one placement.
    pub fn is_unaligned(self) -> bool {
        matches!(
            self,
            Alignment::Unaligned { .. } | Alignment::Offsets { .. } | Alignment::Near { .. }
        )
    }
}

/// One row of the tables: a block size at an alignment.
#[derive(Clone, Copy)]
pub struct Case {
    pub alignment: Alignment,
    pub size: usize,
}

impl Case {
    /// The mean bytes per call: the size, or for random rows the mean of
    /// their lengths' distribution.
    pub fn mean_size(&self) -> f64 {
        match self.alignment {
            Alignment::Random(Lengths::Uniform | Lengths::Window) => self.size as f64 / 2.0,
            Alignment::Random(Lengths::LogUniform) => {
                self.size as f64 / ((self.size + 1) as f64).ln()
            }
            Alignment::Aligned
            | Alignment::Unaligned { .. }
            | Alignment::Offsets { .. }
            | Alignment::Near { .. } => self.size as f64,
        }
    }

    /// The row's block size, as the summary names it: the size, with the
    /// offsets of rows named by them, or for random rows the range of
    /// lengths.
    pub fn size_label(&self) -> String {
        match self.alignment {
            Alignment::Offsets { .. } | Alignment::Near { .. } => {
                format!("{} {}", self.size, self.alignment.label())
            }
            Alignment::Random(Lengths::Uniform) => format!("random 0..={}", self.size),
            Alignment::Random(Lengths::LogUniform) => format!("random log 1..={}", self.size),
            Alignment::Random(Lengths::Window) => format!("random 0..={} in 32 KiB", self.size),
            Alignment::Aligned | Alignment::Unaligned { .. } => self.size.to_string(),
        }
    }
}

/// The measurement of one implementation on one case.
#[derive(Clone, Copy)]
pub struct Estimate {
    /// Median ticks per call.
    pub ticks_per_block: f64,
    /// Rounds the median was taken over.
    pub reps: u32,
}

/// Everything measured for one primitive.
pub struct PrimitiveResults {
    pub primitive: &'static str,
    /// The baselines the summary compares with (the bench's
    /// `Primitive::compare_with`).
    pub compare_with: &'static [&'static str],
    /// The implementations' names and kinds, in the order measured.
    pub implementations: Vec<(String, Kind)>,
    pub cases: Vec<Case>,
    /// `estimates[case][implementation]`.
    pub estimates: Vec<Vec<Estimate>>,
}

impl PrimitiveResults {
    /// The bound's index among the implementations, if one was measured.
    pub fn bound(&self) -> Option<usize> {
        self.implementations
            .iter()
            .position(|&(_, kind)| kind == Kind::Bound)
    }

    /// The efficiency of `implementation` on the row of `estimates`: the
    /// bound's time ÷ its own, 1 for as fast as the hardware allows (more on
    /// short blocks, where the bound's call and loop cost more than an
    /// inlined copy or fill). `None` for the bound itself, or without a
    /// bound.
    pub fn efficiency(&self, estimates: &[Estimate], implementation: usize) -> Option<f64> {
        let bound = self.bound().filter(|&bound| bound != implementation)?;
        Some(estimates[bound].ticks_per_block / estimates[implementation].ticks_per_block)
    }
}
