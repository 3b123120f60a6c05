//! The aggregate view as SVG: one band per view (table, then each index), one row per
//! partition, one coloured cell per item in sort-key order.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{render, samples};
use crate::model::{Design, TABLE};

const COLOURS: &[&str] =
    &["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"];
const PK_W: usize = 250;
const CELL_W: usize = 210;
const ROW_H: usize = 46;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Partition → items `(sort key, entity index)` of one view.
fn view(d: &Design, index: &str) -> BTreeMap<String, Vec<(String, usize)>> {
    let mut parts: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
    for (n, e) in d.entities.iter().enumerate() {
        let Some((pk, sk)) = d.entity_keys(e, index) else { continue };
        for s in samples(e) {
            let sk = sk.map(|t| render(t, s)).unwrap_or_default();
            parts.entry(render(pk, s)).or_default().push((sk, n));
        }
    }
    for items in parts.values_mut() {
        items.sort();
    }
    parts
}

/// The aggregate view as a standalone SVG document.
pub fn svg(d: &Design) -> String {
    let mut views = vec![(TABLE.to_string(), view(d, TABLE))];
    views.extend(d.indexes.iter().map(|i| (i.name.clone(), view(d, &i.name))));
    let widest = views.iter().flat_map(|(_, v)| v.values().map(Vec::len)).max().unwrap_or(1).max(1);
    let width = PK_W + CELL_W * widest + 40;
    let mut body = String::new();
    let mut y = 70;
    for (name, parts) in &views {
        let (pk_attr, sk_attr) = d.key_attrs(name).unwrap_or_default();
        let (pk_attr, sk_attr) = (pk_attr.join(", "), sk_attr.join(", "));
        let _ = write!(
            body,
            r#"<text x="20" y="{}" class="h">{}</text>"#,
            y + 4,
            esc(if name == TABLE { "Table" } else { name })
        );
        let _ = write!(
            body,
            r#"<text x="{}" y="{}" class="k">{} (partition) · {} (sort)</text>"#,
            120,
            y + 4,
            esc(&pk_attr),
            esc(&sk_attr)
        );
        y += 16;
        for (pk, items) in parts {
            let _ = write!(
                body,
                r##"<rect x="20" y="{y}" width="{}" height="{}" class="pk"/><text x="30" y="{}" class="v">{}</text>"##,
                PK_W - 10,
                ROW_H - 6,
                y + 25,
                esc(pk)
            );
            for (i, (sk, n)) in items.iter().enumerate() {
                let x = 20 + PK_W + i * CELL_W;
                let c = COLOURS[n % COLOURS.len()];
                let _ = write!(
                    body,
                    r#"<rect x="{x}" y="{y}" width="{}" height="{}" rx="5" fill="{c}"/><text x="{}" y="{}" class="s">{}</text><text x="{}" y="{}" class="e">{}</text>"#,
                    CELL_W - 8,
                    ROW_H - 6,
                    x + 8,
                    y + 17,
                    esc(sk),
                    x + 8,
                    y + 33,
                    esc(&d.entities[*n].name)
                );
            }
            y += ROW_H;
        }
        y += 30;
    }
    let mut legend = String::new();
    for (n, e) in d.entities.iter().enumerate() {
        let x = 20 + n * 150;
        let _ = write!(
            legend,
            r#"<rect x="{x}" y="{}" width="14" height="14" rx="3" fill="{}"/><text x="{}" y="{}" class="l">{}</text>"#,
            y,
            COLOURS[n % COLOURS.len()],
            x + 20,
            y + 12,
            esc(&e.name)
        );
    }
    let height = y + 40;
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">
<style>.t{{font-size:20px;font-weight:bold;fill:#222}}.h{{font-size:15px;font-weight:bold;fill:#222}}.k{{font-size:12px;fill:#666}}.v{{font-size:13px;font-family:monospace;fill:#222}}.s{{font-size:12px;font-family:monospace;fill:#fff}}.e{{font-size:11px;fill:#fff;opacity:.85}}.l{{font-size:12px;fill:#222}}.pk{{fill:#eef0f3;stroke:#c9ced6}}</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="20" y="36" class="t">{} — aggregate view ({}-&lt;stage&gt;-{})</text>
{body}{legend}
</svg>
"##,
        esc(&format!("{}/{}", d.app, d.model)),
        esc(&d.app),
        esc(&d.model)
    )
}

/// A standalone HTML page: the aggregate view above the access-pattern table.
pub fn html(d: &Design) -> String {
    let rows: String = d
        .access_patterns
        .iter()
        .map(|p| {
            let key = p.key.as_ref().map(|k| k.pk.clone()).unwrap_or_else(|| "Scan".into());
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{:?}</td></tr>",
                esc(&p.name),
                esc(&p.entities.join(", ")),
                esc(&p.index),
                esc(&key),
                p.scope
            )
        })
        .collect();
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{}</title><style>body{{font-family:Helvetica,Arial,sans-serif;margin:20px}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:4px 8px;font-size:13px}}</style></head><body>\n{}\n<h2>Access patterns</h2><table><tr><th>pattern</th><th>entities</th><th>index</th><th>partition key</th><th>scope</th></tr>{rows}</table>\n</body></html>\n",
        esc(&d.model),
        svg(d)
    )
}
