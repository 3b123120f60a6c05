//! The round-trip corpus in `test_data/`.
//!
//! `ok/*.txt`: one expression per line that must parse; printing it gives canonical text
//! (given after `<TAB>=> ` when it differs from the line), and the canonical text parses back
//! to the same tree. `err/*.txt`: one expression per line that must fail, followed by a tab
//! and DynamoDB's message. Lines starting with `//` are comments.

use std::path::Path;

use monotable_expr::{parse_condition, parse_projection, parse_update, ExprError, ExpressionKind};

/// The corpus files of one directory (`ok` or `err`), sorted.
fn files(dir: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data").join(dir);
    let mut out: Vec<String> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt"))
        .map(|n| format!("{dir}/{n}"))
        .collect();
    out.sort();
    out
}

fn lines(file: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().filter(|l| !l.starts_with("//") && !l.is_empty()).map(str::to_owned).collect()
}

/// Parses with the grammar of `file` and prints the canonical form.
fn canonical(file: &str, text: &str) -> Result<String, ExprError> {
    Ok(if file.contains("condition") {
        parse_condition(text, ExpressionKind::Condition)?.to_string()
    } else if file.contains("update") {
        parse_update(text)?.to_string()
    } else {
        parse_projection(text)?.to_string()
    })
}

#[test]
fn ok_corpus_parses_prints_canonically_and_round_trips() {
    let mut count = 0;
    for file in files("ok") {
        let file = file.as_str();
        for line in lines(file) {
            let (input, expected) = match line.split_once("\t=> ") {
                Some((i, e)) => (i.to_owned(), e.to_owned()),
                None => (line.clone(), line.clone()),
            };
            let printed = canonical(file, &input).unwrap_or_else(|e| panic!("{file}: {input:?}: {e}"));
            assert_eq!(printed, expected, "{file}: {input:?}");
            let again =
                canonical(file, &printed).unwrap_or_else(|e| panic!("{file}: reparse {printed:?}: {e}"));
            assert_eq!(again, printed, "{file}: canonical text is a fixed point");
            count += 1;
        }
    }
    assert!(count > 700, "corpus has {count} expressions");
}

#[test]
fn err_corpus_fails_with_dynamodb_messages() {
    let mut failures = Vec::new();
    for file in files("err") {
        let file = file.as_str();
        for line in lines(file) {
            let Some((input, message)) = line.split_once('\t') else { panic!("{file}: no tab in {line:?}") };
            match canonical(file, input) {
                Err(e) if e.message() == message => {}
                other => failures.push(format!("{file}: {input:?}\n  expected {message}\n  got {other:?}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
