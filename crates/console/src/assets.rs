//! The page's static files, compiled into the binary: no build step, no runtime download.

/// `(path under /console/assets/, content type, bytes)`.
const ASSETS: &[(&str, &str, &str)] = &[
    ("console.css", "text/css; charset=utf-8", include_str!("../assets/console.css")),
    ("app.js", "text/javascript; charset=utf-8", include_str!("../assets/app.js")),
    ("grid.js", "text/javascript; charset=utf-8", include_str!("../assets/grid.js")),
    ("tables.js", "text/javascript; charset=utf-8", include_str!("../assets/tables.js")),
    ("items.js", "text/javascript; charset=utf-8", include_str!("../assets/items.js")),
    ("query.js", "text/javascript; charset=utf-8", include_str!("../assets/query.js")),
    ("partiql.js", "text/javascript; charset=utf-8", include_str!("../assets/partiql.js")),
    ("editor.js", "text/javascript; charset=utf-8", include_str!("../assets/editor.js")),
    ("design.js", "text/javascript; charset=utf-8", include_str!("../assets/design.js")),
    ("settings.js", "text/javascript; charset=utf-8", include_str!("../assets/settings.js")),
    ("overview.js", "text/javascript; charset=utf-8", include_str!("../assets/overview.js")),
    ("keys.js", "text/javascript; charset=utf-8", include_str!("../assets/keys.js")),
    ("transfer.js", "text/javascript; charset=utf-8", include_str!("../assets/transfer.js")),
];

/// The page shell; `{{CSRF}}` is replaced by the console's token.
pub const INDEX: &str = include_str!("../assets/index.html");

/// The asset at `name`, with its content type.
pub fn asset(name: &str) -> Option<(&'static str, &'static str)> {
    ASSETS.iter().find(|(n, _, _)| *n == name).map(|(_, ty, body)| (*ty, *body))
}
