//! The design tools: each calls the library function its `monotable design` subcommand calls
//! and returns the same text (`--format json` where the command has it).

use monotable_design::cost::{self, Prices, Traffic};
use monotable_design::{check, codegen, iac, show, Design};

use crate::error::ToolError;
use crate::inputs::{Codegen, Cost, IacFormat, Lang, Validate};

/// The design of a call: the inline text when given, else the server's loaded design.
pub(crate) fn resolve(inline: Option<&str>, loaded: Option<&Design>) -> Result<Design, ToolError> {
    match inline {
        Some(text) => Design::parse(text).map_err(|e| ToolError::BadDesign(e.to_string())),
        None => loaded.cloned().ok_or(ToolError::NoDesign),
    }
}

fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// `design_check`: the lint's findings, as `monotable design check --format json` prints them.
pub(crate) fn check_design(design: &Design) -> String {
    let findings = check(design);
    let errors = findings.iter().filter(|f| f.severity == monotable_design::Severity::Error).count();
    json(&serde_json::json!({
        "errors": errors,
        "warnings": findings.len() - errors,
        "findings": findings,
    }))
}

/// `design_validate`: every access pattern run on sample items in the embedded engine.
pub(crate) fn validate(design: &Design, input: &Validate) -> Result<String, ToolError> {
    let seed = input.seed.unwrap_or(monotable_design_run::DEFAULT_SEED);
    let report = monotable_design_run::validate(design, seed).map_err(|e| ToolError::bad(e.to_string()))?;
    Ok(json(&serde_json::json!({ "passed": report.passed(), "report": report })))
}

/// `design_cost`: a month's bill from the measured capacity and the inline traffic.
pub(crate) fn cost(design: &Design, input: &Cost) -> Result<String, ToolError> {
    let traffic = Traffic::parse(&input.traffic)
        .map_err(|e| ToolError::bad(format!("`traffic` is not a traffic document (docs/cost.md): {e}")))?;
    let prices = match &input.prices {
        Some(text) => {
            Prices::parse(text).map_err(|e| ToolError::bad(format!("`prices` is not a price table: {e}")))?
        }
        None => Prices::us_east_1(),
    };
    let seed = input.seed.unwrap_or(monotable_design_run::DEFAULT_SEED);
    let measured = monotable_design_run::measure(design, seed).map_err(|e| ToolError::bad(e.to_string()))?;
    let estimate = cost::estimate(design, &measured, &traffic, &prices).map_err(|e| {
        ToolError::bad(format!("{e}. Name every access pattern and entity type of the design in `traffic`"))
    })?;
    Ok(json(&estimate))
}

/// `design_show`: the access-pattern table in Markdown.
pub(crate) fn show_markdown(design: &Design) -> String {
    show::markdown(design)
}

/// `design_iac`: the text `monotable design iac --format F` writes; for CDK each file under a
/// `// file: PATH` line.
pub(crate) fn iac(design: &Design, format: IacFormat) -> String {
    match format {
        IacFormat::Cloudformation => json(&iac::cloudformation(design)) + "\n",
        IacFormat::CloudformationYaml => iac::cloudformation_yaml(design),
        IacFormat::Terraform => iac::terraform(design),
        IacFormat::Pulumi => iac::pulumi(design),
        IacFormat::Cdk => {
            iac::cdk(design).into_iter().map(|(path, text)| format!("// file: {path}\n{text}\n")).collect()
        }
    }
}

/// `design_codegen`: the generated source, headed by the file name it belongs in.
pub(crate) fn codegen(design: &Design, input: &Codegen) -> Result<String, ToolError> {
    let (lang, generate): (&str, fn(&Design, &str) -> _) = match input.lang {
        Lang::Typescript => ("typescript", codegen::typescript),
        Lang::Rust => ("rust", codegen::rust),
    };
    let command = format!("monotable design codegen DESIGN --lang {lang}");
    let out = generate(design, &command).map_err(|e| ToolError::bad(e.to_string()))?;
    let skipped = out.skipped.iter().map(|s| format!("// not generated: {s}\n")).collect::<String>();
    Ok(format!("// file: {}\n{skipped}{}", out.file_name, out.text))
}
