//! `fastpath bench --plot`: cycles per byte against block size, log-log, one
//! line per implementation and one for the bound, unaligned blocks, one
//! chart per primitive.
//!
//! A primitive measured at several misaligned placements (the plain copy's
//! `src+S dst+D` rows) is drawn at the first of them, which its caption
//! names: one line per implementation keeps the chart readable, and the
//! tables hold the others.

use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;

use crate::results::{Alignment, Kind, PrimitiveResults};

pub fn write_svg(path: &Path, results: &[PrimitiveResults], unit: &str) -> Result<()> {
    draw(path, results, unit).with_context(|| format!("cannot draw the plot to {}", path.display()))
}

/// Distinct colors that read on white (Tableau 10 and a few more); the
/// dispatching entry point is drawn in black, the bound in dashed black.
const PALETTE: [RGBColor; 12] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x17, 0xbe, 0xcf),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x7f, 0x7f, 0x7f),
];

/// Width of the legend column right of each chart, in pixels.
const LEGEND_WIDTH: u32 = 250;

fn draw(path: &Path, results: &[PrimitiveResults], unit: &str) -> Result<()> {
    let height = 640 * results.len().max(1) as u32;
    let root = SVGBackend::new(path, (1200, height)).into_drawing_area();
    root.fill(&WHITE)?;
    for (area, primitive) in root
        .split_evenly((results.len().max(1), 1))
        .iter()
        .zip(results)
    {
        chart(area, primitive, unit)?;
    }
    root.present()?;
    Ok(())
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// One implementation's line: (block size, ticks per byte) of the rows at
/// the drawn placement.
struct Series<'a> {
    name: &'a str,
    kind: Kind,
    points: Vec<(f64, f64)>,
}

/// How one implementation is drawn.
struct Style {
    color: RGBColor,
    width: u32,
    dashed: bool,
}

fn style(index: usize, kind: Kind) -> Style {
    match kind {
        Kind::Dispatch => Style {
            color: BLACK,
            width: 2,
            dashed: false,
        },
        Kind::Tier => Style {
            color: PALETTE[index % PALETTE.len()],
            width: 3,
            dashed: false,
        },
        Kind::Baseline => Style {
            color: PALETTE[index % PALETTE.len()],
            width: 2,
            dashed: true,
        },
        Kind::Bound => Style {
            color: BLACK,
            width: 2,
            dashed: true,
        },
    }
}

fn chart(area: &Area<'_>, results: &PrimitiveResults, unit: &str) -> Result<()> {
    let drawn = results
        .cases
        .iter()
        .map(|case| case.alignment)
        .find(|alignment| alignment.is_unaligned());
    let series: Vec<Series<'_>> = results
        .implementations
        .iter()
        .enumerate()
        .map(|(index, (name, kind))| {
            let points = results
                .cases
                .iter()
                .zip(&results.estimates)
                .filter(|(case, _)| Some(case.alignment) == drawn)
                .map(|(case, estimates)| {
                    let size = case.size as f64;
                    (size, estimates[index].ticks_per_block / size)
                })
                .collect();
            Series {
                name,
                kind: *kind,
                points,
            }
        })
        .collect();
    let points = || series.iter().flat_map(|s| s.points.iter().copied());
    let (x_min, x_max) = bounds(points().map(|(x, _)| x));
    let (y_min, y_max) = bounds(points().map(|(_, y)| y));

    let (plot_area, legend_area) = area.split_horizontally(area.dim_in_pixel().0 - LEGEND_WIDTH);
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(
            format!(
                "fastpath bench {}: {unit} per byte, {} (lower is faster)",
                results.primitive,
                match drawn {
                    Some(alignment @ Alignment::Offsets { .. }) =>
                        format!("blocks at {}", alignment.label()),
                    _ => "unaligned blocks".to_owned(),
                }
            ),
            ("sans-serif", 22),
        )
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(
            (x_min / 1.3..x_max * 1.3).log_scale(),
            (y_min / 1.5..y_max * 1.5).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("block size (bytes)")
        .y_desc(format!("{unit}/byte"))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.3}"))
        .draw()?;

    for (index, Series { kind, points, .. }) in series.iter().enumerate() {
        let Style {
            color,
            width,
            dashed,
        } = style(index, *kind);
        let line = color.stroke_width(width);
        if dashed {
            chart.draw_series(DashedLineSeries::new(points.iter().copied(), 8, 5, line))?;
        } else {
            chart.draw_series(LineSeries::new(points.iter().copied(), line))?;
        }
        chart.draw_series(
            points
                .iter()
                .map(|&point| Circle::new(point, 3, color.filled())),
        )?;
    }
    legend(&legend_area, &series)?;
    Ok(())
}

/// The legend, in its own column so that it hides no line.
fn legend(area: &Area<'_>, series: &[Series<'_>]) -> Result<()> {
    let font = ("sans-serif", 15).into_font().color(&BLACK);
    for (index, Series { name, kind, .. }) in series.iter().enumerate() {
        let Style {
            color,
            width,
            dashed,
        } = style(index, *kind);
        let y = 60 + 24 * index as i32;
        let line = color.stroke_width(width);
        if dashed {
            for x in [10, 24] {
                area.draw(&PathElement::new([(x, y), (x + 9, y)], line))?;
            }
        } else {
            area.draw(&PathElement::new([(10, y), (33, y)], line))?;
        }
        area.draw(&Circle::new((21, y), 3, color.filled()))?;
        area.draw(&Text::new(name.to_string(), (42, y - 8), font.clone()))?;
    }
    Ok(())
}

/// The smallest and largest positive finite value, or (1, 10) if none.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(None, |acc: Option<(f64, f64)>, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
        .unwrap_or((1.0, 10.0))
}
