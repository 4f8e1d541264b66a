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
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Tier => "tier",
            Kind::Dispatch => "dispatch",
            Kind::Baseline => "baseline",
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
}

/// Where a block starts relative to a 64-byte boundary.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Alignment {
    Aligned,
    Unaligned,
    /// Random calls: offsets and lengths from a table (the bench's
    /// `Block::calls`).
    Random(Lengths),
}

impl Alignment {
    /// The alignments of the rows of fixed block sizes.
    pub const BOTH: [Alignment; 2] = [Alignment::Aligned, Alignment::Unaligned];

    pub fn label(self) -> &'static str {
        match self {
            Alignment::Aligned => "Aligned",
            Alignment::Unaligned => "Unaligned",
            Alignment::Random(Lengths::Uniform) => "Random uniform 0..=size",
            Alignment::Random(Lengths::LogUniform) => "Random log-uniform 1..=size",
        }
    }

    pub fn json_name(self) -> &'static str {
        match self {
            Alignment::Aligned => "aligned",
            Alignment::Unaligned => "unaligned",
            Alignment::Random(Lengths::Uniform) => "random-uniform",
            Alignment::Random(Lengths::LogUniform) => "random-log-uniform",
        }
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
            Alignment::Aligned | Alignment::Unaligned => self.size as f64,
            Alignment::Random(Lengths::Uniform) => self.size as f64 / 2.0,
            Alignment::Random(Lengths::LogUniform) => {
                self.size as f64 / ((self.size + 1) as f64).ln()
            }
        }
    }

    /// The row's block size, as the summary names it: the size, or for
    /// random rows the range of lengths.
    pub fn size_label(&self) -> String {
        match self.alignment {
            Alignment::Aligned | Alignment::Unaligned => self.size.to_string(),
            Alignment::Random(Lengths::Uniform) => format!("random 0..={}", self.size),
            Alignment::Random(Lengths::LogUniform) => format!("random log 1..={}", self.size),
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
