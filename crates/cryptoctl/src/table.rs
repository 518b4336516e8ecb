//! Plain-text tables with aligned columns, for the human output of every subcommand.
//!
//! Two spaces between columns, numbers right-aligned, the last column never padded (so
//! lines carry no trailing blanks and long verdicts can run on).

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// A table under construction.
#[derive(Debug, Default)]
pub struct Table {
    header: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headings.
    pub fn new(columns: &[(&str, Align)]) -> Table {
        Table {
            header: columns.iter().map(|(h, _)| h.to_string()).collect(),
            align: columns.iter().map(|&(_, a)| a).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row; missing cells are blank, extra cells are ignored.
    pub fn row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut row: Vec<String> = cells
            .into_iter()
            .map(Into::into)
            .take(self.header.len())
            .collect();
        row.resize(self.header.len(), String::new());
        self.rows.push(row);
    }

    /// The table as text, each line prefixed with `indent` and ended by a newline.
    pub fn render(&self, indent: &str) -> String {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| {
                std::iter::once(&self.header)
                    .chain(&self.rows)
                    .map(|r| r[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::from(indent);
            let last = row.len().saturating_sub(1);
            for (c, cell) in row.iter().enumerate() {
                if c > 0 {
                    line.push_str("  ");
                }
                let pad = widths[c] - cell.chars().count();
                match self.align[c] {
                    Align::Right => {
                        line.push_str(&" ".repeat(pad));
                        line.push_str(cell);
                    }
                    Align::Left if c == last => line.push_str(cell),
                    Align::Left => {
                        line.push_str(cell);
                        line.push_str(&" ".repeat(pad));
                    }
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_columns() {
        let mut t = Table::new(&[
            ("DRIVER", Align::Left),
            ("PRIO", Align::Right),
            ("NOTE", Align::Left),
        ]);
        t.row(["xts-aes-aesni", "401", "chosen"]);
        t.row(["aes-generic", "100", ""]);
        assert_eq!(
            t.render(""),
            "DRIVER         PRIO  NOTE\n\
             xts-aes-aesni   401  chosen\n\
             aes-generic     100\n"
        );
    }

    #[test]
    fn short_rows_are_padded() {
        let mut t = Table::new(&[("A", Align::Left), ("B", Align::Left)]);
        t.row(["x"]);
        assert_eq!(t.render("  "), "  A  B\n  x\n");
    }
}
