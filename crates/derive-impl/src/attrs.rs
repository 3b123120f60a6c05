//! Parsing of `#[entity(...)]` and the parts of `#[serde(...)]` that change attribute names.

use syn::{Ident, LitStr};

/// A key template as written, with its span for diagnostics.
pub struct TemplateAttr {
    pub lit: LitStr,
}

/// One `gsiN(pk = "...", sk = "...")` declaration, or with field lists
/// `gsiN(pk = [a, b], sk = [c])` for a multi-attribute key. For a multi-attribute key, `pk`
/// and `sk` hold the equivalent templates `{a}#{b}` and `{c}` (the design document's form of
/// an entity's key on such an index) and `multi` the fields as written.
pub struct IndexAttr {
    pub name: Ident,
    pub pk: TemplateAttr,
    pub sk: Option<TemplateAttr>,
    pub multi: Option<MultiAttr>,
}

/// The field lists of a multi-attribute index key, in key order.
pub struct MultiAttr {
    pub pk: Vec<Ident>,
    pub sk: Vec<Ident>,
}

/// One side of `pk = ...` / `sk = ...` in an index: a template or a bracketed field list.
enum KeyValue {
    Template(TemplateAttr),
    Fields(Vec<Ident>, proc_macro2::Span),
}

fn key_value(inner: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<KeyValue> {
    let value = inner.value()?;
    if !value.peek(syn::token::Bracket) {
        return Ok(KeyValue::Template(TemplateAttr { lit: value.parse()? }));
    }
    let content;
    let bracket = syn::bracketed!(content in value);
    let list = syn::punctuated::Punctuated::<Ident, syn::Token![,]>::parse_terminated(&content)?;
    Ok(KeyValue::Fields(list.into_iter().collect(), bracket.span.join()))
}

/// The most fields one part of a multi-attribute GSI key may list: "up to four attributes"
/// each for the partition and the sort key (DynamoDB developer guide, "Multi-attribute keys
/// pattern", https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html).
pub const MAX_KEY_FIELDS: usize = 4;

/// Checks one field list of a multi-attribute key and returns its template form `{a}#{b}`.
fn field_list(part: &str, fields: &[Ident], span: proc_macro2::Span) -> syn::Result<TemplateAttr> {
    if fields.is_empty() {
        return Err(syn::Error::new(
            span,
            format!("`{part} = []` lists no field; name 1 to {MAX_KEY_FIELDS}"),
        ));
    }
    if let Some(extra) = fields.get(MAX_KEY_FIELDS) {
        return Err(syn::Error::new(
            extra.span(),
            format!("a multi-attribute {part} has at most {MAX_KEY_FIELDS} fields (DynamoDB's limit)"),
        ));
    }
    let source: Vec<String> = fields.iter().map(|f| format!("{{{f}}}")).collect();
    Ok(TemplateAttr { lit: LitStr::new(&source.join("#"), span) })
}

/// Builds an index declaration from its `pk` and `sk` values.
fn index_attr(name: Ident, pk: Option<KeyValue>, sk: Option<KeyValue>) -> syn::Result<IndexAttr> {
    let mixed = "an index's keys are both templates (`pk = \"...\"`) or both field lists (`pk = [a, b]`)";
    match (pk, sk) {
        (None, _) => Err(syn::Error::new(name.span(), "an index needs `pk = \"...\"` or `pk = [fields]`")),
        (Some(KeyValue::Template(pk)), None) => Ok(IndexAttr { name, pk, sk: None, multi: None }),
        (Some(KeyValue::Template(pk)), Some(KeyValue::Template(sk))) => {
            Ok(IndexAttr { name, pk, sk: Some(sk), multi: None })
        }
        (Some(KeyValue::Template(_)), Some(KeyValue::Fields(_, at)))
        | (Some(KeyValue::Fields(_, at)), Some(KeyValue::Template(_))) => Err(syn::Error::new(at, mixed)),
        (Some(KeyValue::Fields(_, at)), None) => Err(syn::Error::new(
            at,
            "a multi-attribute index needs `sk = [fields]` too (the design document's indexes have a sort key)",
        )),
        (Some(KeyValue::Fields(pk, pk_at)), Some(KeyValue::Fields(sk, sk_at))) => {
            let pk_t = field_list("partition key", &pk, pk_at)?;
            let sk_t = field_list("sort key", &sk, sk_at)?;
            for (i, f) in pk.iter().chain(&sk).enumerate() {
                if pk.iter().chain(&sk).take(i).any(|g| g == f) {
                    return Err(syn::Error::new(
                        f.span(),
                        format!("`{f}` is listed twice; each key attribute appears once in an index"),
                    ));
                }
            }
            Ok(IndexAttr { name, pk: pk_t, sk: Some(sk_t), multi: Some(MultiAttr { pk, sk }) })
        }
    }
}

/// One `pattern(name = "...", query, index = gsi1, begins_with = "...", admin, filter(a, b))`.
pub struct PatternAttr {
    /// The `pattern` word, for errors about the whole declaration.
    pub at: proc_macro2::Span,
    pub name: Option<LitStr>,
    /// The operations named (exactly one is valid): `get`, `query`, `put`, …
    pub operations: Vec<Ident>,
    pub index: Option<Ident>,
    pub pk: Option<TemplateAttr>,
    /// Sort-key conditions given (at most one is valid): the operator word and the value.
    pub sort: Vec<(Ident, TemplateAttr)>,
    pub admin: bool,
    pub filter: Vec<Ident>,
}

/// The operation words of a pattern, in the design's spelling.
pub const OPERATIONS: &[&str] =
    &["get", "query", "put", "update", "delete", "transact_write", "batch_get", "batch_write"];

/// The sort-key operator words of a pattern (`sk` is equality).
pub const SORT_OPS: &[&str] = &["sk", "begins_with", "lt", "le", "gt", "ge"];

fn pattern_attr(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<PatternAttr> {
    let mut p = PatternAttr {
        at: meta.path.get_ident().map_or_else(proc_macro2::Span::call_site, Ident::span),
        name: None,
        operations: Vec::new(),
        index: None,
        pk: None,
        sort: Vec::new(),
        admin: false,
        filter: Vec::new(),
    };
    meta.parse_nested_meta(|inner| {
        let Some(word) = inner.path.get_ident().cloned() else {
            return Err(inner.error("expected a pattern attribute"));
        };
        let w = word.to_string();
        if w == "name" {
            p.name = Some(inner.value()?.parse()?);
        } else if w == "index" {
            p.index = Some(inner.value()?.parse()?);
        } else if w == "pk" {
            p.pk = Some(TemplateAttr { lit: inner.value()?.parse()? });
        } else if w == "admin" {
            p.admin = true;
        } else if w == "filter" {
            inner.parse_nested_meta(|f| {
                p.filter.push(f.path.get_ident().cloned().ok_or_else(|| f.error("expected a field name"))?);
                Ok(())
            })?;
        } else if SORT_OPS.contains(&w.as_str()) {
            p.sort.push((word, TemplateAttr { lit: inner.value()?.parse()? }));
        } else if OPERATIONS.contains(&w.as_str()) {
            p.operations.push(word);
        } else {
            return Err(inner.error(
                "unknown pattern attribute; expected name = \"...\", an operation (get, query, put, update, delete, transact_write, batch_get, batch_write), index = gsiN, pk = \"...\", sk/begins_with/lt/le/gt/ge = \"...\", admin or filter(..)",
            ));
        }
        Ok(())
    })?;
    Ok(p)
}

/// Everything `#[entity(...)]` declares.
pub struct EntityAttrs {
    pub name: Option<LitStr>,
    pub pk: Option<TemplateAttr>,
    pub sk: Option<TemplateAttr>,
    pub tenant: Option<Ident>,
    pub owner: Option<Ident>,
    pub version: Option<Ident>,
    pub ttl: Option<Ident>,
    pub unique: Vec<Ident>,
    pub indexes: Vec<IndexAttr>,
    pub patterns: Vec<PatternAttr>,
    pub validate: bool,
}

pub fn entity_attrs(attrs: &[syn::Attribute]) -> syn::Result<EntityAttrs> {
    let mut out = EntityAttrs {
        name: None,
        pk: None,
        sk: None,
        tenant: None,
        owner: None,
        version: None,
        ttl: None,
        unique: Vec::new(),
        indexes: Vec::new(),
        patterns: Vec::new(),
        validate: false,
    };
    for attr in attrs.iter().filter(|a| a.path().is_ident("entity")) {
        attr.parse_nested_meta(|meta| {
            let path = &meta.path;
            if path.is_ident("name") {
                out.name = Some(meta.value()?.parse()?);
            } else if path.is_ident("pk") {
                out.pk = Some(TemplateAttr { lit: meta.value()?.parse()? });
            } else if path.is_ident("sk") {
                out.sk = Some(TemplateAttr { lit: meta.value()?.parse()? });
            } else if path.is_ident("tenant") {
                out.tenant = Some(meta.value()?.parse()?);
            } else if path.is_ident("owner") {
                out.owner = Some(meta.value()?.parse()?);
            } else if path.is_ident("version") {
                out.version = Some(meta.value()?.parse()?);
            } else if path.is_ident("ttl") {
                out.ttl = Some(meta.value()?.parse()?);
            } else if path.is_ident("validate") {
                out.validate = true;
            } else if path.is_ident("pattern") {
                out.patterns.push(pattern_attr(&meta)?);
            } else if path.is_ident("unique") {
                meta.parse_nested_meta(|inner| {
                    let ident = inner.path.get_ident().cloned().ok_or_else(|| inner.error("expected a field name"))?;
                    out.unique.push(ident);
                    Ok(())
                })?;
            } else if let Some(ident) = path.get_ident().filter(|i| is_gsi_name(&i.to_string())) {
                let name = ident.clone();
                let mut pk = None;
                let mut sk = None;
                meta.parse_nested_meta(|inner| {
                    if inner.path.is_ident("pk") {
                        pk = Some(key_value(&inner)?);
                    } else if inner.path.is_ident("sk") {
                        sk = Some(key_value(&inner)?);
                    } else {
                        return Err(inner.error("expected `pk = \"...\"`, `sk = \"...\"` or `pk = [fields]`, `sk = [fields]`"));
                    }
                    Ok(())
                })?;
                out.indexes.push(index_attr(name, pk, sk)?);
            } else {
                return Err(meta.error(
                    "unknown entity attribute; expected name, pk, sk, tenant, owner, version, ttl, unique(..), validate, gsiN(..) or pattern(..)",
                ));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// `gsi1`, `gsi2`, … (1 to 20, DynamoDB's default GSI quota).
fn is_gsi_name(name: &str) -> bool {
    name.strip_prefix("gsi").and_then(|n| n.parse::<u8>().ok()).is_some_and(|n| (1..=20).contains(&n))
}

/// The serde naming of a struct: container `rename_all` and per-field `rename`.
pub fn serde_rename_all(attrs: &[syn::Attribute]) -> syn::Result<Option<LitStr>> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                found = Some(meta.value()?.parse::<LitStr>()?);
            } else {
                skip_meta(&meta)?;
            }
            Ok(())
        })?;
    }
    Ok(found)
}

/// A field's `#[serde(rename = "...")]`, if any.
pub fn serde_rename(attrs: &[syn::Attribute]) -> syn::Result<Option<String>> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                found = Some(meta.value()?.parse::<LitStr>()?.value());
            } else {
                skip_meta(&meta)?;
            }
            Ok(())
        })?;
    }
    Ok(found)
}

/// Consumes a serde option this macro does not care about (`default`, `skip_serializing_if = ".."`,
/// `with(..)`).
fn skip_meta(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_meta(&inner))?;
    }
    Ok(())
}

/// Applies a serde `rename_all` rule to a Rust field name.
pub fn apply_rename_all(rule: &LitStr, field: &str) -> syn::Result<String> {
    let words: Vec<&str> = field.split('_').filter(|w| !w.is_empty()).collect();
    let capitalise = |w: &str| {
        let mut c = w.chars();
        c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
    };
    Ok(match rule.value().as_str() {
        "snake_case" => field.to_string(),
        "lowercase" => field.to_ascii_lowercase(),
        "UPPERCASE" | "SCREAMING_SNAKE_CASE" => field.to_ascii_uppercase(),
        "kebab-case" => field.replace('_', "-"),
        "PascalCase" => words.iter().map(|w| capitalise(w)).collect(),
        "camelCase" => {
            let mut out = String::new();
            for (i, w) in words.iter().enumerate() {
                out.push_str(&if i == 0 { w.to_string() } else { capitalise(w) });
            }
            out
        }
        other => {
            return Err(syn::Error::new(
                rule.span(),
                format!("monotable does not support rename_all = \"{other}\""),
            ))
        }
    })
}
