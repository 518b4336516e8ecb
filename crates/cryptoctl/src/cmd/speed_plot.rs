//! `cryptoctl speed NAME --plot FILE.svg`: throughput against message size, one line per
//! driver (per driver and operation for AEADs), the size axis log-scaled, written as SVG
//! with `plotters`. Only the SVG backend is compiled in, with no font stack: labels are
//! SVG `<text>` elements that the viewer renders, so the tool needs no system fonts.

use std::path::Path;

use plotters::prelude::*;

/// One line of the plot: its legend and a MB/s value (or nothing) per size.
pub struct Series {
    pub label: String,
    pub mb_per_sec: Vec<Option<f64>>,
}

/// Colours distinct enough on white, cycled; the marker shape changes each cycle.
const COLOURS: &[RGBColor] = &[
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Writes the plot of `series` over `sizes` (bytes) to `path`.
pub fn write_svg(
    path: &Path,
    title: &str,
    sizes: &[usize],
    series: &[Series],
) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("plot {}: {e}", path.display());
    let min = sizes.iter().copied().min().unwrap_or(1).max(1) as f64;
    let max = sizes.iter().copied().max().unwrap_or(1).max(1) as f64;
    // A log axis needs a range: widen a single size by a factor of two each way.
    let (lo, hi) = if max > min {
        (min, max)
    } else {
        (min / 2.0, max * 2.0)
    };
    let top = series
        .iter()
        .flat_map(|s| s.mb_per_sec.iter().flatten())
        .fold(0.0f64, |a, &b| a.max(b));
    let top = if top > 0.0 { top * 1.08 } else { 1.0 };

    let height = 480 + 22 * series.len() as u32;
    let root = SVGBackend::new(path, (960, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d((lo..hi).log_scale(), 0.0..top)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("message size, bytes (log scale)")
        .y_desc("MB/s (10^6 bytes/s)")
        .light_line_style(BLACK.mix(0.03))
        .x_label_formatter(&|v| format!("{:.0}", v))
        .y_label_formatter(&|v| format!("{:.0}", v))
        .draw()
        .map_err(|e| fail(&e))?;
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let points: Vec<(f64, f64)> = sizes
            .iter()
            .zip(&s.mb_per_sec)
            .filter_map(|(&size, v)| v.map(|v| (size as f64, v)))
            .collect();
        let style = ShapeStyle::from(&colour).stroke_width(2);
        chart
            .draw_series(LineSeries::new(points.clone(), style))
            .map_err(|e| fail(&e))?
            .label(s.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        let marker_style = ShapeStyle::from(&colour).filled();
        if (i / COLOURS.len()).is_multiple_of(2) {
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, marker_style)))
                .map_err(|e| fail(&e))?;
        } else {
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|&p| TriangleMarker::new(p, 4, marker_style)),
                )
                .map_err(|e| fail(&e))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
