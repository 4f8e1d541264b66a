//! The `fastpath` binary, run as a user would.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fastpath(args: &[&str], tier: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fastpath"));
    command.args(args);
    match tier {
        Some(tier) => command.env("FASTPATH_TIER", tier),
        None => command.env_remove("FASTPATH_TIER"),
    };
    command.output().expect("the fastpath binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("UTF-8 output")
}

/// The active tier `info` reports.
fn active_tier(info: &str) -> &str {
    info.lines()
        .find_map(|line| line.strip_prefix("Active tier:"))
        .map(str::trim)
        .expect("an active tier line")
}

#[test]
fn info_names_the_active_tier() {
    let output = fastpath(&["info"], None);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    for heading in ["CPU features:", "Tiers:", "FASTPATH_TIER: not set"] {
        assert!(text.contains(heading), "no {heading:?} in:\n{text}");
    }
    let tier: fastpath::Tier = active_tier(&text).parse().expect("a tier name");
    assert_eq!(tier, fastpath::active_tier());
    for tier in fastpath::Tier::ALL {
        assert!(
            text.contains(tier.name()),
            "tier {tier} missing from:\n{text}"
        );
    }
}

#[test]
fn info_honours_fastpath_tier() {
    let output = fastpath(&["info"], Some("portable"));
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert_eq!(active_tier(&text), "portable", "in:\n{text}");
    assert!(text.contains("FASTPATH_TIER: \"portable\""), "in:\n{text}");
}

#[test]
fn empty_fastpath_tier_is_not_set() {
    for value in ["", " "] {
        let output = fastpath(&["info"], Some(value));
        assert!(output.status.success(), "{}", stderr(&output));
        assert_eq!(stderr(&output), "", "FASTPATH_TIER={value:?}");
        let text = stdout(&output);
        assert!(text.contains("as if not set"), "in:\n{text}");
        let unset = stdout(&fastpath(&["info"], None));
        assert_eq!(active_tier(&text), active_tier(&unset), "in:\n{text}");
    }
}

#[test]
fn bogus_fastpath_tier_is_reported_not_fatal() {
    let output = fastpath(&["info"], Some("bogus"));
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("bogus"),
        "stderr: {}",
        stderr(&output)
    );
    let text = stdout(&output);
    assert!(text.contains("ignored"), "in:\n{text}");
    // The cap is ignored: the best tier is chosen.
    let tier: fastpath::Tier = active_tier(&text).parse().expect("a tier name");
    assert!(tier.is_available());
}

#[test]
fn bench_fill_compares_with_glibc() {
    let output = fastpath(
        &["bench", "fill", "--sizes", "1,100", "--reps", "3", "--json"],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line}")))
        .collect();
    let tier = fastpath::active_tier();
    let mut expected: Vec<String> = fastpath::Tier::ALL
        .into_iter()
        .filter(|tier| tier.is_available())
        .map(|tier| tier.name().to_owned())
        .collect();
    expected.push(format!("fastpath::fill (dispatch: {tier})"));
    expected.push(format!("fastpath::fill_nontemporal (dispatch: {tier})"));
    expected.push("slice::fill (glibc memset)".to_owned());
    expected.push(bound_name(&lines, "stores"));
    // Two sizes at two alignments; `--sizes` leaves out the random rows.
    let (fill, outside): (Vec<_>, Vec<_>) =
        lines.iter().partition(|line| line["primitive"] == "fill");
    assert_eq!(fill.len(), expected.len() * 4);
    for name in &expected {
        let rows = fill.iter().filter(|line| line["impl"] == name.as_str());
        assert_eq!(rows.count(), 4, "rows of {name}");
    }
    // The same rows again, called as applications call: the entry points
    // and glibc.
    assert!(
        outside
            .iter()
            .all(|line| line["primitive"] == "fill, as applications call it")
    );
    for name in &expected[expected.len() - 4..expected.len() - 1] {
        let rows = outside.iter().filter(|line| line["impl"] == name.as_str());
        assert_eq!(rows.count(), 4, "rows of {name}, as applications call");
    }
    assert_eq!(outside.len(), 3 * 4);
}

/// `--check` measures a failing row again in a process of its own, through
/// the hidden `--rows`: each line it prints names a row and an entry point,
/// and its speed there × its baseline's; every row named is measured.
#[test]
fn bench_rows_measures_the_rows_named() {
    let output = fastpath(
        &[
            "bench",
            "--rows",
            "3:unaligned:100;4:random-window:64;2:src0-dst14:100",
            "--reps",
            "3",
        ],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let mut rows = Vec::new();
    for line in stdout(&output).lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 5, "{line}");
        assert!(["2", "3", "4"].contains(&fields[0]), "{line}");
        assert!(fields[4].parse::<f64>().is_ok_and(|r| r > 0.0), "{line}");
        rows.push(format!("{}:{}:{}", fields[0], fields[2], fields[3]));
    }
    for row in ["3:unaligned:100", "4:random-window:64", "2:src0-dst14:100"] {
        assert!(
            rows.iter().any(|r| r == row),
            "{row} not measured: {rows:?}"
        );
    }
    for rows in ["9:aligned:1", "3:sideways:1", "3:aligned:x", "3:aligned"] {
        let output = fastpath(&["bench", "--rows", rows], None);
        assert_eq!(output.status.code(), Some(1), "{rows}");
        assert!(stderr(&output).contains("--rows"), "{rows}");
    }
}

#[test]
fn bench_json_has_every_implementation() {
    let output = fastpath(
        &[
            "bench", "checksum", "--sizes", "20,1500", "--reps", "3", "--json",
        ],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line}")))
        .collect();

    // Every kernel table this CPU runs.
    let mut expected: Vec<String> = fastpath::arch::variants()
        .map(|kernels| kernels.name().to_owned())
        .collect();
    expected.push(format!("fastpath (dispatch: {})", fastpath::active_tier()));
    expected.extend(
        [
            "reference",
            "dpdk-loop",
            "linux-adc",
            "internet-checksum",
            "smoltcp",
            "s2n-quic-core",
            "etherparse",
        ]
        .map(String::from),
    );
    expected.push(bound_name(&lines, "loads"));
    // Two sizes at two alignments each.
    assert_eq!(lines.len(), expected.len() * 4);
    for name in &expected {
        let rows: Vec<_> = lines
            .iter()
            .filter(|line| line["impl"] == name.as_str())
            .collect();
        assert_eq!(rows.len(), 4, "rows of {name}");
        for row in rows {
            assert_eq!(row["primitive"], "checksum");
            // The summary's baseline: the fastest on each row.
            assert_eq!(row["compare_with"], serde_json::json!([]), "{row}");
            let kind = row["kind"].as_str().unwrap();
            assert!(["tier", "dispatch", "baseline", "bound"].contains(&kind));
            // The bound's time ÷ the implementation's; none for the bound.
            if kind == "bound" {
                assert!(row["efficiency"].is_null(), "{row}");
            } else {
                let efficiency = row["efficiency"].as_f64().unwrap();
                assert!(efficiency > 0.0 && efficiency.is_finite(), "{row}");
            }
            assert!(["aligned", "unaligned"].contains(&row["alignment"].as_str().unwrap()));
            let size = row["size"].as_u64().unwrap();
            assert!(size == 20 || size == 1500);
            let per_block = row["cycles_per_block"].as_f64().unwrap();
            let per_byte = row["cycles_per_byte"].as_f64().unwrap();
            assert!(per_block > 0.0 && per_block.is_finite(), "{row}");
            assert!(
                (per_byte * size as f64 - per_block).abs() <= 1e-6 * per_block,
                "{row}"
            );
            assert_eq!(row["reps"], 3);
        }
    }
}

#[test]
fn bench_plot_writes_svg() {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fastpath-cli-test-plot.svg");
    let _ = std::fs::remove_file(&path);
    let output = fastpath(
        &[
            "bench",
            "--sizes",
            "64,1500",
            "--reps",
            "3",
            "--plot",
            path.to_str().unwrap(),
        ],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("checksum: avx512") || text.contains("checksum: portable"),
        "{text}"
    );
    assert!(text.contains("Fastest baseline"), "{text}");
    let svg = std::fs::read_to_string(&path).expect("the plot was written");
    assert!(svg.contains("<svg"));
    assert!(svg.contains("<text"), "labels are SVG text");
    assert!(svg.contains("dpdk-loop"), "the legend names the baselines");
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    for args in [
        &["bench", "--sizes", "0"][..],
        &["bench", "--sizes", "20,abc"],
        &["bench", "--reps", "0"],
        &["bench", "no-such-primitive"],
        &[
            "bench",
            "--sizes",
            "20",
            "--reps",
            "1",
            "--plot",
            "/nonexistent-dir/plot.svg",
        ],
    ] {
        let output = fastpath(args, None);
        assert!(!output.status.success(), "{args:?} succeeded");
        let err = stderr(&output);
        assert!(err.contains("error"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `--check` ends with its verdict, and exits with 0 if every entry point
/// kept up with its baseline, 1 with the list of rows where one did not
/// (which rows depends on the CPU: the unit tests of `bench::check` cover
/// the verdict itself).
#[test]
fn bench_check_gives_a_verdict() {
    let output = fastpath(
        &[
            "bench", "fill", "--check", "--sizes", "64,4096", "--reps", "3",
        ],
        None,
    );
    let text = stdout(&output);
    let verdict = text
        .lines()
        .find(|line| line.starts_with("bench --check: "))
        .unwrap_or_else(|| panic!("no verdict in {text}"));
    match output.status.code() {
        Some(0) => assert!(verdict.contains("every fastpath entry point"), "{text}"),
        Some(1) => assert!(
            text.lines()
                .any(|line| line.starts_with("  fill: fastpath::fill")),
            "{text}"
        ),
        code => panic!("exit status {code:?}: {}", stderr(&output)),
    }
}

/// `bench copy` measures the fused copy-and-checksum and the plain copy, the
/// plain copy with the source and the destination at their offsets, and
/// with the destination a few bytes past the source in the page.
#[test]
fn bench_copy_measures_both_copies() {
    let output = fastpath(
        &["bench", "copy", "--json", "--sizes", "100", "--reps", "3"],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    for primitive in ["\"primitive\":\"copy\"", "\"primitive\":\"memcpy\""] {
        assert!(text.contains(primitive), "{primitive} in {text}");
    }
    assert!(text.contains("\"impl\":\"copy_from_slice\""), "{text}");
    // The summaries' baselines, each in a table of its own.
    for line in text.lines() {
        let line: serde_json::Value = serde_json::from_str(line).unwrap();
        let expected = match line["primitive"].as_str().unwrap() {
            "copy" => serde_json::json!(["copy_from_slice + checksum", "copy_from_slice"]),
            _ => serde_json::json!(["copy_from_slice"]),
        };
        assert_eq!(line["compare_with"], expected, "{line}");
    }
    let alignments = |primitive: &str| -> Vec<String> {
        let mut names: Vec<String> = text
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .filter(|line| line["primitive"] == primitive)
            .map(|line| line["alignment"].as_str().unwrap().to_owned())
            .collect();
        names.dedup();
        names
    };
    assert_eq!(alignments("copy"), ["aligned", "unaligned"]);
    assert_eq!(
        alignments("memcpy"),
        [
            "aligned",
            "src1-dst0",
            "src0-dst1",
            "src14-dst0",
            "src0-dst14",
            "near-dst1",
            "near-dst14"
        ]
    );
}

/// The name of the bound among the implementations in `lines`: the active
/// tier's, making these `accesses`.
fn bound_name(lines: &[serde_json::Value], accesses: &str) -> String {
    let bound = lines
        .iter()
        .find(|line| line["kind"] == "bound")
        .expect("a bound");
    let name = bound["impl"].as_str().unwrap();
    let tier = fastpath::active_tier();
    assert!(name.starts_with(&format!("bound ({tier}: ")), "{name}");
    assert!(name.ends_with(&format!("-byte {accesses})")), "{name}");
    name.to_owned()
}
