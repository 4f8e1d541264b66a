//! The command line of `fastpath bench`.

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;

use super::PRIMITIVES;
use super::harness::MAX_REPS;

/// The largest block `--sizes` accepts (each primitive may accept less).
const MAX_SIZE: usize = 1 << 30;

#[derive(clap::Args)]
pub struct Args {
    /// The primitive to measure; all of them if omitted.
    #[arg(value_parser = primitive_names())]
    pub primitive: Option<String>,

    /// Print one JSON object per line per measurement instead of tables.
    #[arg(long)]
    pub json: bool,

    /// After measuring, list every row where a fastpath entry point is
    /// slower than its baseline beyond noise (below 0.97× in each of up to
    /// four measurements, then in fresh processes with the address space
    /// not randomized and the stack at two places), and exit with status 1
    /// if there is one.
    #[arg(long)]
    pub check: bool,

    /// Also draw cycles/byte against block size (unaligned blocks), with the
    /// bound, as SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Rounds of samples (the median is reported) [default: as many as fit
    /// in a one-minute budget, at least 9].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_REPS)))]
    pub reps: Option<u32>,

    /// Comma-separated block sizes in bytes [default: each primitive's;
    /// checksum: 20,21,100,101,1500,1501,9000,9001,65536,65537].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_size)]
    pub sizes: Vec<usize>,

    /// Measures only these rows, in a process of its own, and prints each
    /// entry point's speed × its baseline's on each: how `--check`
    /// measures a row again with the address space not randomized.
    #[arg(long, hide = true, value_name = "ROWS")]
    pub rows: Option<String>,
}

fn primitive_names() -> PossibleValuesParser {
    let mut names: Vec<&str> = PRIMITIVES.iter().map(|p| p.command).collect();
    names.dedup();
    PossibleValuesParser::new(names)
}

fn parse_size(text: &str) -> Result<usize, String> {
    let size: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a block size in bytes"))?;
    if size == 0 {
        return Err("block sizes must be at least 1 byte".to_owned());
    }
    if size > MAX_SIZE {
        return Err(format!("block sizes must be at most {MAX_SIZE} bytes"));
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        assert_eq!(parse_size(" 1500"), Ok(1500));
        assert!(parse_size("0").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("1k").is_err());
        assert_eq!(parse_size(&MAX_SIZE.to_string()), Ok(MAX_SIZE));
        assert!(parse_size(&(MAX_SIZE + 1).to_string()).is_err());
    }
}
