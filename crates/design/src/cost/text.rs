//! `Estimate::to_text`: the estimate as tables a person reads.

use std::fmt::Write;

use super::estimate::{Capacity, Estimate};

impl Estimate {
    /// Per pattern, per index, storage and the totals, on-demand and provisioned side by side,
    /// then the notes.
    pub fn to_text(&self) -> String {
        let money = |v: f64| money(v, &self.prices.currency);
        let p = &self.prices;
        let mut out = format!(
            "DynamoDB estimate for month {}: {} {} prices ({}) read {}\n\n",
            self.month, p.region, p.table_class, p.currency, p.read_on
        );

        let mut rows = vec![row([
            "Access pattern",
            "Operation",
            "Index",
            "Requests/month",
            "RRU/req",
            "WRU/req",
            "On-demand",
            "Mean RCU/s",
            "Mean WCU/s",
        ])];
        for r in &self.patterns {
            let op = serde_json::to_value(r.operation).ok().and_then(|v| v.as_str().map(str::to_string));
            let consistency = if r.consistent { " (strong)" } else { "" };
            rows.push(vec![
                r.name.clone(),
                format!("{}{consistency}", op.unwrap_or_default()),
                r.index.clone(),
                count(r.requests_per_month),
                units(r.read_units_per_request),
                units(r.write_units_per_request),
                money(r.on_demand_usd),
                format!("{:.2}", r.read_units_per_second),
                format!("{:.2}", r.write_units_per_second),
            ]);
        }
        out += &table(&rows, 3);

        if !self.indexes.is_empty() {
            let mut rows = vec![row([
                "Index",
                "Kind",
                "Projection",
                "RRU/month",
                "WRU/month",
                "On-demand",
                "Storage",
                "Provisioned",
                "KEYS_ONLY saves",
            ])];
            for i in &self.indexes {
                let saves = match &i.keys_only {
                    Some(k) => format!("{} / {}", money(k.on_demand_usd), money(k.provisioned_usd)),
                    None => "-".into(),
                };
                rows.push(vec![
                    i.name.clone(),
                    i.kind.clone(),
                    i.projection.clone(),
                    count(i.read_units_per_month),
                    count(i.write_units_per_month),
                    money(i.on_demand_usd),
                    money(i.storage_usd),
                    i.provisioned.as_ref().map(capacity).unwrap_or_else(|| "table's".into()),
                    saves,
                ]);
            }
            out.push('\n');
            out += &table(&rows, 3);
            out += "(KEYS_ONLY saves: on-demand / provisioned, per month)\n";
        }

        let s = &self.storage;
        let gb = |bytes: f64| {
            if s.table_bytes + s.index_bytes > 0.0 {
                s.gb * bytes / (s.table_bytes + s.index_bytes)
            } else {
                0.0
            }
        };
        let _ = writeln!(
            out,
            "\nStorage: table {:.3} GB, indexes {:.3} GB, {}",
            gb(s.table_bytes),
            gb(s.index_bytes),
            money(s.usd)
        );

        let (od, pr) = (&self.on_demand, &self.provisioned.cost);
        let rows = vec![
            row(["", "On-demand", "Provisioned"]),
            vec!["Reads".into(), money(od.reads_usd), money(pr.reads_usd)],
            vec!["Writes".into(), money(od.writes_usd), money(pr.writes_usd)],
            vec!["Storage".into(), money(od.storage_usd), money(pr.storage_usd)],
            vec!["Total".into(), money(od.total_usd), money(pr.total_usd)],
        ];
        out.push('\n');
        out += &table(&rows, 1);
        let gsis: Vec<String> = self
            .indexes
            .iter()
            .filter_map(|i| i.provisioned.as_ref().map(|c| format!("{} {}", i.name, capacity(c))))
            .collect();
        let _ = writeln!(
            out,
            "Provisioned at {}% target utilization, peak factor {}: table {}{}{}",
            self.provisioned.target_utilization_percent,
            self.provisioned.peak_factor,
            capacity(&self.provisioned.table),
            if gsis.is_empty() { "" } else { "; " },
            gsis.join("; ")
        );

        if !self.notes.is_empty() {
            out += "\nNotes:\n";
            for n in &self.notes {
                let _ = writeln!(out, "- {n}");
            }
        }
        out
    }
}

fn row<const N: usize>(cells: [&str; N]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

/// Columns padded to their widest cell: the first `text` columns left-aligned, the figures
/// after them right-aligned.
fn table(rows: &[Vec<String>], text: usize) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> =
            r.iter()
                .enumerate()
                .map(|(c, s)| {
                    if c < text {
                        format!("{s:<w$}", w = widths[c])
                    } else {
                        format!("{s:>w$}", w = widths[c])
                    }
                })
                .collect();
        out += cells.join("  ").trim_end();
        out.push('\n');
    }
    out
}

fn capacity(c: &Capacity) -> String {
    format!("{} RCU / {} WCU", c.read_units, c.write_units)
}

/// Money to the cent, `$` for USD, else the currency after the figure.
fn money(v: f64, currency: &str) -> String {
    let cents = (v * 100.0).round();
    let whole = grouped((cents / 100.0).trunc());
    let text = format!("{whole}.{:02}", (cents % 100.0).abs() as u64);
    if currency == "USD" {
        format!("${text}")
    } else {
        format!("{text} {currency}")
    }
}

/// A count rounded to a whole number, with thousands separators.
fn count(v: f64) -> String {
    grouped(v.round())
}

/// Units per request: whole or to two decimals (0.5 for an eventually consistent read).
fn units(v: f64) -> String {
    if v.fract() == 0.0 {
        grouped(v)
    } else {
        format!("{v:.2}").trim_end_matches('0').to_string()
    }
}

fn grouped(v: f64) -> String {
    let digits = format!("{v:.0}");
    let (sign, digits) = digits.split_at(if digits.starts_with('-') { 1 } else { 0 });
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    format!("{sign}{out}")
}
