//! The document around a scoreboard, diff or history page: doctype, viewport, the inline style sheet
//! and the inline filter script. Nothing is fetched: the page opens from disk, offline.

use std::io::{self, Write};

use super::escape::Escaped;

const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("filter.js");

/// Writes everything up to and including `<body>` and the page's `<h1>`.
pub(in crate::cli) fn write_head(title: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<!DOCTYPE html>")?;
    writeln!(out, "<html lang=\"en\">")?;
    writeln!(out, "<head>")?;
    writeln!(out, "<meta charset=\"utf-8\">")?;
    writeln!(
        out,
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    )?;
    writeln!(
        out,
        "<meta name=\"generator\" content=\"pad-conformance {}\">",
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(out, "<title>{}</title>", Escaped(title))?;
    writeln!(out, "<style>\n{STYLE}</style>")?;
    writeln!(out, "</head>")?;
    writeln!(out, "<body>")?;
    writeln!(out, "<h1>{}</h1>", Escaped(title))
}

/// Writes the filter script and closes the document.
pub(in crate::cli) fn write_foot(out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<footer><p class=\"muted\">Written by pad-conformance {}. Statuses, bases, conformance and coverage: \
         docs/report-format.md.</p></footer>",
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(out, "<script>\n{SCRIPT}</script>")?;
    writeln!(out, "</body>")?;
    writeln!(out, "</html>")
}

/// A filter box (hidden until the script runs, so that a page without JavaScript shows no
/// dead control) filtering the `[data-text]` items inside the element with id `scope`.
pub(in crate::cli) fn write_filter(scope: &str, placeholder: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<p class=\"filter\" hidden><input type=\"search\" data-scope=\"{}\" placeholder=\"{}\" aria-label=\"{}\"></p>",
        Escaped(scope),
        Escaped(placeholder),
        Escaped(placeholder)
    )
}

#[cfg(test)]
mod tests {
    use super::STYLE;

    /// `#rrggbb` or `#rgb` as linear RGB.
    fn linear(hex: &str) -> [f64; 3] {
        let hex = hex.trim_start_matches('#');
        let digits: String = if hex.len() == 3 {
            hex.chars().flat_map(|c| [c, c]).collect()
        } else {
            hex.to_owned()
        };
        let channel = |i: usize| {
            let c = f64::from(u8::from_str_radix(&digits[i..i + 2], 16).unwrap()) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        [channel(0), channel(2), channel(4)]
    }

    /// Relative luminance (WCAG 2).
    fn luminance(rgb: [f64; 3]) -> f64 {
        0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    }

    fn contrast(a: f64, b: f64) -> f64 {
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    /// What a deuteranope (or, with the other matrix, a protanope) sees: Machado, Oliveira and
    /// Fernandes (2009), severity 1.
    fn seen(matrix: &[[f64; 3]; 3], rgb: [f64; 3]) -> [f64; 3] {
        matrix.map(|row| (row[0] * rgb[0] + row[1] * rgb[1] + row[2] * rgb[2]).clamp(0.0, 1.0))
    }

    const DEUTERANOPIA: [[f64; 3]; 3] = [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ];
    const PROTANOPIA: [[f64; 3]; 3] = [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ];

    /// The background and text colour of pass-share class `.sN`, from the style sheet.
    fn step(n: usize) -> ([f64; 3], [f64; 3]) {
        let rule = STYLE
            .split(&format!(".s{n} {{"))
            .nth(1)
            .unwrap_or_else(|| panic!(".s{n} is not in the style sheet"));
        let rule = &rule[..rule.find('}').unwrap()];
        let value = |property: &str| {
            let start = rule.find(&format!("{property}: #")).unwrap() + property.len() + 2;
            linear(rule[start..].split(';').next().unwrap().trim())
        };
        (value("background"), value("color"))
    }

    #[test]
    fn the_pass_share_palette_is_ordered_by_lightness_for_every_eye_and_its_numbers_read() {
        for vision in [None, Some(&DEUTERANOPIA), Some(&PROTANOPIA)] {
            let lightness: Vec<f64> = (0..=10)
                .map(|n| {
                    let background = step(n).0;
                    luminance(vision.map_or(background, |m| seen(m, background)))
                })
                .collect();
            assert!(
                lightness.windows(2).all(|w| w[0] < w[1]),
                "{vision:?}: not ordered by lightness: {lightness:?}"
            );
            // None passed and all passed, told apart at a glance (the old palette: 1.14).
            let ends = contrast(lightness[0], lightness[10]);
            assert!(ends > 7.0, "{vision:?}: 0% and 100% differ by {ends:.2}:1");
        }
        for n in 0..=10 {
            let (background, text) = step(n);
            let readable = contrast(luminance(background), luminance(text));
            assert!(readable >= 4.5, ".s{n}: text contrast {readable:.2}:1");
        }
    }
}
