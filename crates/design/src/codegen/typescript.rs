//! The TypeScript generator: Zod schemas, key builders, scopes and one object per access
//! pattern whose `input(..)` returns a `@aws-sdk/lib-dynamodb` command input.
//!
//! Invariant: the generated module imports only `zod` and types of `@aws-sdk/lib-dynamodb`,
//! writes keys exactly as the Rust library renders them (`monotable::escape`, the
//! `_UNIQUE#{type}#{field}#{value}` guard items of `crates/monotable/src/unique.rs`), and
//! takes a tenant's partition only from a scope value, which only `personalScope`,
//! `orgScope` and `adminScope` can make (S12, S14).

use crate::model::{Design, Entity, Field, FieldType, Operation, SortOp};
use crate::template::{Part, Template};

use super::names::{pascal, ts_binding, ts_get, ts_prop, ts_str, ts_template_text, ts_type};
use super::resolve::{self, Authority, Problem, Resolved};
use super::CodegenError;

/// Writes the module; returns its text and the skipped patterns.
pub fn generate(design: &Design, command: &str) -> Result<(String, Vec<String>), CodegenError> {
    let mut patterns = Vec::new();
    let mut skipped = Vec::new();
    for p in &design.access_patterns {
        match resolve::resolve(design, p).and_then(|r| shape(&r).map(|s| (r, s))) {
            Ok(pair) => patterns.push(pair),
            Err(Problem::Bad(e)) => return Err(e),
            Err(Problem::Skip(why)) => skipped.push(format!("{}: {why}", p.name)),
        }
    }
    let g = Gen { design };
    let mut o = String::new();
    o.push_str(&format!("// {}\n", super::header(command)));
    o.push_str(&format!(
        "//\n// Table model `{}` of application `{}`, unit `{}` (S19); the rules S1-S22 are monotable's\n// single-table standard (docs/STANDARD.md).\n\n",
        design.model, design.app, design.unit
    ));
    o.push_str("import { z } from \"zod\";\n");
    let mut types: Vec<&str> = patterns.iter().map(|(_, s)| s.command_type()).collect();
    types.sort_unstable();
    types.dedup();
    if !types.is_empty() {
        o.push_str(&format!("import type {{ {} }} from \"@aws-sdk/lib-dynamodb\";\n", types.join(", ")));
    }
    o.push('\n');
    g.conventions(&mut o);
    o.push_str(SCOPES);
    o.push_str(ESCAPE);
    let has = |f: fn(&Shape) -> bool| patterns.iter().any(|(_, s)| f(s));
    if has(|s| matches!(s, Shape::Query)) {
        o.push_str(PAGING);
    }
    if has(Shape::writes) {
        o.push_str(WRITING);
    }
    for e in &design.entities {
        g.entity(&mut o, e);
    }
    if !design.entities.is_empty() {
        let all: Vec<String> = design.entities.iter().map(|e| ts_type(&e.name)).collect();
        o.push_str(&format!(
            "/** Every entity type of the table, told apart by `{}` (S3). */\nexport const AnyEntity = z.discriminatedUnion({}, [{}]);\nexport type AnyEntity = z.infer<typeof AnyEntity>;\n\n",
            design.conventions.entity_type,
            ts_str(&design.conventions.entity_type),
            all.join(", ")
        ));
    }
    g.keys(&mut o)?;
    let writers: Vec<&str> =
        patterns.iter().filter(|(_, s)| s.stores()).map(|(r, _)| r.entities[0].name.as_str()).collect();
    for e in design.entities.iter().filter(|e| writers.contains(&e.name.as_str())) {
        g.stored(&mut o, e)?;
    }
    for (r, s) in &patterns {
        g.pattern(&mut o, r, s)?;
    }
    if !skipped.is_empty() {
        o.push_str("// Access patterns not generated:\n");
        for s in &skipped {
            o.push_str(&format!("// - {s}\n"));
        }
    }
    while o.ends_with("\n\n") {
        o.pop();
    }
    Ok((o, skipped))
}

/// What a pattern becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Get,
    Query,
    /// A put of a new item, only if its key is free.
    Create,
    /// A create with its unique-value guard items in one transaction (S17).
    CreateWithGuards,
    /// A put that creates or replaces, keeping the created stamps (an UpdateItem).
    Upsert,
    Update,
    Delete,
}

impl Shape {
    fn command_type(self) -> &'static str {
        match self {
            Shape::Get => "GetCommandInput",
            Shape::Query => "QueryCommandInput",
            Shape::Create => "PutCommandInput",
            Shape::CreateWithGuards => "TransactWriteCommandInput",
            Shape::Update | Shape::Upsert => "UpdateCommandInput",
            Shape::Delete => "DeleteCommandInput",
        }
    }

    fn writes(&self) -> bool {
        !matches!(self, Shape::Get | Shape::Query)
    }

    fn creates(&self) -> bool {
        matches!(self, Shape::Create | Shape::CreateWithGuards)
    }

    /// Whether the pattern writes a whole item (and needs its `stored…` function).
    fn stores(&self) -> bool {
        self.creates() || *self == Shape::Upsert
    }
}

/// The generated form of a resolved pattern, or why it is skipped.
fn shape(r: &Resolved<'_>) -> Result<Shape, Problem> {
    let p = r.pattern;
    let skip = |why: &str| Err(Problem::Skip(why.into()));
    if matches!(r.sk, Some((SortOp::Between, _))) {
        return skip("a `between` condition has one value in the design; give the range in code");
    }
    let op = p.operation;
    if op == Operation::Query {
        return Ok(Shape::Query);
    }
    if matches!(op, Operation::BatchGet | Operation::BatchWrite) {
        return skip("batch operations are not generated; call the single-item patterns in a batch");
    }
    if r.index.is_some() || !matches!(r.sk, Some((SortOp::Eq, _))) {
        return skip("a single-item operation needs the table's full key (`sk` with `op: eq`)");
    }
    if op == Operation::Get {
        return Ok(Shape::Get);
    }
    let [e] = r.entities.as_slice() else {
        return skip("a write names exactly one entity type");
    };
    let sk = r.sk.as_ref().map(|(_, t)| t.source);
    if r.pk.source != e.pk || sk != Some(e.sk.as_str()) {
        return skip("a write's key must be its entity type's table key");
    }
    match op {
        Operation::Update => Ok(Shape::Update),
        Operation::Delete if !e.unique.is_empty() => {
            skip("deleting a type with unique fields must delete its guard items too; not generated")
        }
        Operation::Delete => Ok(Shape::Delete),
        Operation::TransactWrite => Ok(Shape::CreateWithGuards),
        Operation::Put if !p.name.starts_with("create") && !e.unique.is_empty() => {
            skip("a put that replaces an item with unique fields must move its guard items; not generated")
        }
        Operation::Put if !p.name.starts_with("create") => Ok(Shape::Upsert),
        _ if !e.unique.is_empty() => Ok(Shape::CreateWithGuards),
        _ => Ok(Shape::Create),
    }
}

struct Gen<'a> {
    design: &'a Design,
}

/// The Zod schema of a field's stored type. A field whose type the design leaves out is a
/// string, the type of every key part; a version (S16) and an expiry are integers.
fn zod(e: &Entity, f: &Field) -> &'static str {
    if e.version_field.as_deref() == Some(&f.name) || e.ttl.as_deref() == Some(&f.name) {
        return "z.number().int()";
    }
    match f.ty {
        None | Some(FieldType::String) | Some(FieldType::Enum) => "z.string()",
        Some(FieldType::Timestamp) => "z.string().datetime({ offset: true })",
        Some(FieldType::Number) => "z.number()",
        Some(FieldType::Bool) => "z.boolean()",
        Some(FieldType::Binary) => "z.instanceof(Uint8Array)",
        Some(FieldType::List) => "z.array(z.unknown())",
        Some(FieldType::Map) => "z.record(z.string(), z.unknown())",
    }
}

/// The TypeScript type of a key field's value.
fn key_type(e: &Entity, f: &Field) -> &'static str {
    match zod(e, f) {
        "z.number()" | "z.number().int()" => "number",
        "z.boolean()" => "boolean",
        _ => "string",
    }
}

/// A template as a TypeScript expression: a string literal, or a template literal whose
/// placeholders are `escapeKey(value(field))`.
fn render(t: &Template<'_>, value: &dyn Fn(&str) -> String) -> String {
    if t.vars().next().is_none() {
        return ts_str(t.source);
    }
    let mut s = String::from("`");
    for part in &t.parts {
        match part {
            Part::Lit(l) => s.push_str(&ts_template_text(l)),
            Part::Var(v) => s.push_str(&format!("${{escapeKey({})}}", value(v))),
        }
    }
    s.push('`');
    s
}

/// `monotable::escape` of a text known when generating (a type or attribute name).
fn escape_now(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.chars() {
        if c <= '#' || c == '%' {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl Gen<'_> {
    fn stamps(&self, e: &Entity) -> Vec<&str> {
        let c = &self.design.conventions;
        if !e.stamps {
            return Vec::new();
        }
        [&c.created, &c.updated, &c.created_by].into_iter().flatten().map(String::as_str).collect()
    }

    fn conventions(&self, o: &mut String) {
        let c = &self.design.conventions;
        o.push_str("/** The attribute names the table's conventions give (S2, S3, S4). */\nexport const attributes = {\n");
        let named = [
            ("pk", Some(&c.pk)),
            ("sk", Some(&c.sk)),
            ("entityType", Some(&c.entity_type)),
            ("created", c.created.as_ref()),
            ("updated", c.updated.as_ref()),
            ("createdBy", c.created_by.as_ref()),
            ("ttl", c.ttl.as_ref()),
        ];
        for (k, v) in named {
            if let Some(v) = v {
                o.push_str(&format!("  {k}: {},\n", ts_str(v)));
            }
        }
        o.push_str("} as const;\n\n");
    }

    fn entity(&self, o: &mut String, e: &Entity) {
        let ty = ts_type(&e.name);
        let et = &self.design.conventions.entity_type;
        o.push_str(&format!("/** `{}`: key `{}` / `{}`", e.name, e.pk, e.sk));
        if let Some(t) = &e.tenant {
            o.push_str(&format!("; tenant field `{}`", t.field));
        }
        o.push_str(". Unknown attributes (keys, index keys) are dropped when parsing. */\n");
        o.push_str(&format!(
            "export const {ty} = z.object({{\n  {}: z.literal({}),\n",
            ts_prop(et),
            ts_str(&e.name)
        ));
        for f in &e.fields {
            o.push_str(&format!("  {}: {},\n", ts_prop(f.attr()), zod(e, f)));
        }
        for s in self.stamps(e) {
            o.push_str(&format!("  {}: z.string().optional(),\n", ts_prop(s)));
        }
        o.push_str("});\n");
        o.push_str(&format!("export type {ty} = z.infer<typeof {ty}>;\n"));
        let mut left_out = vec![ts_str(et)];
        left_out.extend(self.stamps(e).into_iter().map(ts_str));
        o.push_str(&format!(
            "/** `{}` as application code writes it: no entity type, no stamps. */\nexport type {ty}Fields = Omit<{ty}, {}>;\n\n",
            e.name,
            left_out.join(" | ")
        ));
    }

    /// The `Pick<..Fields, ..>` of the fields a template uses.
    fn pick(&self, e: &Entity, ts: &[&Template<'_>]) -> Result<String, CodegenError> {
        let mut attrs: Vec<String> = Vec::new();
        for t in ts {
            for v in t.vars() {
                let f = e.field(v).ok_or_else(|| CodegenError::Undefined {
                    subject: e.name.clone(),
                    what: format!("field `{v}`"),
                })?;
                let a = ts_str(f.attr());
                if !attrs.contains(&a) {
                    attrs.push(a);
                }
            }
        }
        let list = if attrs.is_empty() { "never".to_string() } else { attrs.join(" | ") };
        Ok(format!("Pick<{}Fields, {list}>", ts_type(&e.name)))
    }

    /// One key builder: `(k: Pick<..>): { PK: string; SK: string } => ({ .. })`.
    fn key_fn(
        &self,
        e: &Entity,
        attrs: [&str; 2],
        ts: [Option<&Template<'_>>; 2],
    ) -> Result<String, CodegenError> {
        let present: Vec<(&str, &Template<'_>)> =
            attrs.iter().zip(ts).filter_map(|(a, t)| t.map(|t| (*a, t))).collect();
        let templates: Vec<&Template<'_>> = present.iter().map(|(_, t)| *t).collect();
        let uses = templates.iter().any(|t| t.vars().next().is_some());
        let arg = if uses { "k" } else { "_k" };
        let value = |v: &str| e.field(v).map_or_else(|| ts_get("k", v), |f| ts_get("k", f.attr()));
        let ty: Vec<String> = present.iter().map(|(a, _)| format!("{}: string", ts_prop(a))).collect();
        let body: Vec<String> =
            present.iter().map(|(a, t)| format!("{}: {}", ts_prop(a), render(t, &value))).collect();
        Ok(format!(
            "({arg}: {}): {{ {} }} => ({{ {} }})",
            self.pick(e, &templates)?,
            ty.join("; "),
            body.join(", ")
        ))
    }

    fn keys(&self, o: &mut String) -> Result<(), CodegenError> {
        let c = &self.design.conventions;
        o.push_str("/** Table keys (S5): values escaped as the library escapes them, so `#` in a value cannot\n * forge another item's key. */\nexport const keys = {\n");
        for e in &self.design.entities {
            let pk = resolve::template(&e.pk)?;
            let sk = resolve::template(&e.sk)?;
            o.push_str(&format!(
                "  {}: {},\n",
                ts_binding(&e.name),
                self.key_fn(e, [&c.pk, &c.sk], [Some(&pk), Some(&sk)])?
            ));
        }
        o.push_str("};\n\n");
        if self.design.entities.iter().all(|e| e.indexes.is_empty()) {
            return Ok(());
        }
        o.push_str(
            "/** Secondary-index keys per entity type and index (S5, S7). */\nexport const indexKeys = {\n",
        );
        for e in self.design.entities.iter().filter(|e| !e.indexes.is_empty()) {
            o.push_str(&format!("  {}: {{\n", ts_binding(&e.name)));
            for (name, k) in &e.indexes {
                let Some((pk, sk)) = self.index_templates(e, name)? else { continue };
                let (pk_attrs, sk_attrs) = self.design.key_attrs(name).unwrap_or_default();
                let ([pk_attr], [sk_attr]) = (pk_attrs.as_slice(), sk_attrs.as_slice()) else { continue };
                let lsi = k.pk.is_none() || pk_attr == &c.pk;
                let pk = if lsi { None } else { Some(&pk) };
                o.push_str(&format!(
                    "    {}: {},\n",
                    ts_prop(name),
                    self.key_fn(e, [pk_attr, sk_attr], [pk, sk.as_ref()])?
                ));
            }
            o.push_str("  },\n");
        }
        o.push_str("};\n\n");
        Ok(())
    }

    /// An entity's templates on `index`, parsed; `None` when the index is not in the design.
    fn index_templates<'e>(
        &self,
        e: &'e Entity,
        index: &str,
    ) -> Result<Option<(Template<'e>, Option<Template<'e>>)>, CodegenError> {
        let k = &e.indexes[index];
        let pk = match k.pk.as_deref() {
            Some(p) => p,
            None => &e.pk,
        };
        if self.design.index(index).is_none() {
            return Ok(None);
        }
        Ok(Some((resolve::template(pk)?, k.sk.as_deref().map(resolve::template).transpose()?)))
    }

    /// The stored item of an entity type (S3, S4 and its index keys), for the writes.
    fn stored(&self, o: &mut String, e: &Entity) -> Result<(), CodegenError> {
        let c = &self.design.conventions;
        let ty = ts_type(&e.name);
        let b = ts_binding(&e.name);
        let input = match &e.version_field {
            Some(v) => format!("Omit<{ty}Fields, {}>", ts_str(e.field(v).map_or(v.as_str(), Field::attr))),
            None => format!("{ty}Fields"),
        };
        o.push_str(&format!(
            "/** `{}` as stored: its fields, keys, index keys, entity type and updated stamp. */\nfunction stored{ty}(f: {input}, now: string): Record<string, unknown> {{\n  return {{\n    ...f,\n    ...keys.{b}(f),\n",
            e.name
        ));
        for name in e.indexes.keys() {
            if self.index_templates(e, name)?.is_some() {
                o.push_str(&format!("    ...{}(f),\n", ts_get(&format!("indexKeys.{b}"), name)));
            }
        }
        o.push_str(&format!("    {}: {},\n", ts_prop(&c.entity_type), ts_str(&e.name)));
        if let (true, Some(u)) = (e.stamps, &c.updated) {
            o.push_str(&format!("    {}: now,\n", ts_prop(u)));
        }
        if let (Some(t), Some(attr)) = (&e.ttl, &c.ttl) {
            let f = e.field(t).map_or(t.as_str(), Field::attr);
            o.push_str(&format!("    {}: {},\n", ts_prop(attr), ts_get("f", f)));
        }
        o.push_str("  };\n}\n\n");
        Ok(())
    }

    fn pattern(&self, o: &mut String, r: &Resolved<'_>, s: &Shape) -> Result<(), CodegenError> {
        let p = r.pattern;
        let name = ts_binding(&p.name);
        let where_ = r.index.map_or_else(|| "the table".to_string(), |i| format!("index `{i}`"));
        let who = match r.authority {
            Authority::Admin => "admin only (S14): the caller passes every key field".to_string(),
            _ => format!(
                "tenant-scoped (S12): `{}` comes from the verified scope, never from the request",
                r.tenant.unwrap_or_default()
            ),
        };
        let types: Vec<&str> = r.entities.iter().map(|e| e.name.as_str()).collect();
        let parsed = self.parsed_type(o, r, s);
        o.push_str(&format!(
            "/** `{}`: {} on {where_} of {}; {who}. */\nexport const {name} = {{\n  name: {},\n  operation: {},\n",
            p.name,
            op_word(*s),
            types.join(", "),
            ts_str(&p.name),
            ts_str(super::operation_word(p.operation)),
        ));
        if r.authority == Authority::Admin {
            o.push_str("  adminOnly: true,\n");
        }
        let scope = match r.authority {
            Authority::Owner => "OwnerScope",
            Authority::Org => "OrgScope",
            Authority::Admin => "AdminScope",
        };
        let params = self.params(r);
        // An admin pattern that stamps no author uses its scope only as proof of the capability.
        let scope_arg = if r.tenant.is_none() && !s.stores() { "_scope" } else { "scope" };
        let mut args = vec!["tableName: string".to_string(), format!("{scope_arg}: {scope}")];
        let e = r.entities[0];
        let ty = ts_type(&e.name);
        match s {
            Shape::Get | Shape::Query | Shape::Delete | Shape::Update => {
                if !params.is_empty() {
                    args.push(format!("params: {{ {} }}", params.join("; ")));
                }
            }
            Shape::Upsert => args.push(format!("item: {ty}Fields")),
            Shape::Create | Shape::CreateWithGuards => {
                let input = match &e.version_field {
                    Some(v) => {
                        format!("Omit<{ty}Fields, {}>", ts_str(e.field(v).map_or(v.as_str(), Field::attr)))
                    }
                    None => format!("{ty}Fields"),
                };
                args.push(format!("item: {input}"));
            }
        }
        match s {
            Shape::Query => args.push("options: QueryOptions = {}".into()),
            Shape::Update => {
                args.push(format!("changes: {}", self.changes_type(e)));
                args.push("options: UpdateOptions = {}".into());
            }
            Shape::Create | Shape::CreateWithGuards | Shape::Upsert => {
                args.push("options: WriteOptions = {}".into())
            }
            Shape::Get | Shape::Delete => {}
        }
        o.push_str(&format!("  input({}): {} {{\n", args.join(", "), s.command_type()));
        let value = |v: &str| -> String {
            if Some(v) == r.tenant {
                return match r.authority {
                    Authority::Org => "scope.orgId".into(),
                    _ => "scope.userId".into(),
                };
            }
            let attr = r.field(v).map_or(v, Field::attr);
            ts_get("params", attr)
        };
        match s {
            Shape::Get | Shape::Delete => {
                o.push_str(&format!(
                    "    return {{ TableName: tableName, Key: {} }};\n",
                    self.full_key(r, &value)
                ));
            }
            Shape::Query => self.query_body(o, r, &value),
            Shape::Create | Shape::CreateWithGuards => self.create_body(o, r, s),
            Shape::Update => self.update_body(o, r, &value)?,
            Shape::Upsert => self.upsert_body(o, r),
        }
        o.push_str("  },\n");
        match (s, &parsed) {
            (Shape::Get, Some(t)) => o.push_str(&format!(
                "  parse(output: {{ readonly Item?: Record<string, unknown> }}): {t} | undefined {{\n    return output.Item === undefined ? undefined : {t}.parse(output.Item);\n  }},\n"
            )),
            (Shape::Query, Some(t)) => o.push_str(&format!(
                "  parse(output: {{ readonly Items?: readonly Record<string, unknown>[] }}): {t}[] {{\n    return (output.Items ?? []).map((item) => {t}.parse(item));\n  }},\n"
            )),
            (Shape::Update | Shape::Upsert, _) => o.push_str(&format!(
                "  parse(output: {{ readonly Attributes?: Record<string, unknown> }}): {ty} {{\n    return {ty}.parse(output.Attributes);\n  }},\n"
            )),
            _ => {}
        }
        o.push_str("} as const;\n\n");
        Ok(())
    }

    /// The schema a read's items are parsed with: the entity type's, or for several types a
    /// discriminated union written just before the pattern.
    fn parsed_type(&self, o: &mut String, r: &Resolved<'_>, s: &Shape) -> Option<String> {
        if !matches!(s, Shape::Get | Shape::Query) {
            return None;
        }
        if let [e] = r.entities.as_slice() {
            return Some(ts_type(&e.name));
        }
        let union = format!("{}Item", pascal(&r.pattern.name));
        let members: Vec<String> = r.entities.iter().map(|e| ts_type(&e.name)).collect();
        let et = &self.design.conventions.entity_type;
        o.push_str(&format!(
            "/** An item of `{}`: one of its entity types, by `{et}` (S1, S3). */\nexport const {union} = z.discriminatedUnion({}, [{}]);\nexport type {union} = z.infer<typeof {union}>;\n\n",
            r.pattern.name,
            ts_str(et),
            members.join(", ")
        ));
        Some(union)
    }

    /// `readonly attr: type` per parameter.
    fn params(&self, r: &Resolved<'_>) -> Vec<String> {
        r.params()
            .into_iter()
            .filter_map(|v| {
                let f = r.field(v)?;
                let e = r.entities.iter().find(|e| e.field(v).is_some())?;
                Some(format!("readonly {}: {}", ts_prop(f.attr()), key_type(e, f)))
            })
            .collect()
    }

    fn full_key(&self, r: &Resolved<'_>, value: &dyn Fn(&str) -> String) -> String {
        let sk = r.sk.as_ref().map(|(_, t)| render(t, value)).unwrap_or_default();
        format!("{{ {}: {}, {}: {sk} }}", ts_prop(&r.pk_attr), render(&r.pk, value), ts_prop(&r.sk_attr))
    }

    fn query_body(&self, o: &mut String, r: &Resolved<'_>, value: &dyn Fn(&str) -> String) {
        let cond = match &r.sk {
            None => "#pk = :pk".to_string(),
            Some((op, _)) => {
                let c = match op {
                    SortOp::Eq => "#sk = :sk",
                    SortOp::BeginsWith => "begins_with(#sk, :sk)",
                    SortOp::Lt => "#sk < :sk",
                    SortOp::Le => "#sk <= :sk",
                    SortOp::Gt => "#sk > :sk",
                    SortOp::Ge | SortOp::Between => "#sk >= :sk",
                };
                format!("#pk = :pk AND {c}")
            }
        };
        o.push_str("    return {\n      TableName: tableName,\n");
        if let Some(i) = r.index {
            o.push_str(&format!("      IndexName: {},\n", ts_str(i)));
        }
        o.push_str(&format!("      KeyConditionExpression: {},\n", ts_str(&cond)));
        match &r.sk {
            None => {
                o.push_str(&format!(
                    "      ExpressionAttributeNames: {{ \"#pk\": {} }},\n",
                    ts_str(&r.pk_attr)
                ));
                o.push_str(&format!(
                    "      ExpressionAttributeValues: {{ \":pk\": {} }},\n",
                    render(&r.pk, value)
                ));
            }
            Some((_, t)) => {
                o.push_str(&format!(
                    "      ExpressionAttributeNames: {{ \"#pk\": {}, \"#sk\": {} }},\n",
                    ts_str(&r.pk_attr),
                    ts_str(&r.sk_attr)
                ));
                o.push_str(&format!(
                    "      ExpressionAttributeValues: {{ \":pk\": {}, \":sk\": {} }},\n",
                    render(&r.pk, value),
                    render(t, value)
                ));
            }
        }
        o.push_str("      ...paging(options),\n    };\n");
    }

    /// A write whose item names another tenant than its scope is refused before it is sent.
    fn tenant_check(&self, o: &mut String, r: &Resolved<'_>) {
        let e = r.entities[0];
        if let Some(t) = r.tenant {
            let attr = e.field(t).map_or(t, Field::attr);
            let scope = if r.authority == Authority::Org { "scope.orgId" } else { "scope.userId" };
            o.push_str(&format!("    sameTenant({scope}, {}, {});\n", ts_get("item", attr), ts_str(attr)));
        }
    }

    /// The upsert of a put, as `Repository::put` plans it (crates/monotable/src/repo.rs): every
    /// stored attribute but the key set, the created stamps kept with `if_not_exists`, and with
    /// a version the stored one required to equal the item's (or the item to be new) and
    /// replaced by one more (S16).
    fn upsert_body(&self, o: &mut String, r: &Resolved<'_>) {
        let c = &self.design.conventions;
        let e = r.entities[0];
        self.tenant_check(o, r);
        let version = e.version_field.as_deref().map(|v| e.field(v).map_or(v, Field::attr));
        let mut skip = vec![ts_str(&c.pk), ts_str(&c.sk)];
        skip.extend(version.map(ts_str));
        o.push_str(&format!(
            "    const now = stamp(options);\n    const names: Record<string, string> = {{}};\n    const values: Record<string, unknown> = {{}};\n    const sets: string[] = [];\n    for (const [attr, v] of Object.entries(stored{}(item, now))) {{\n      if ([{}].includes(attr)) continue;\n      names[`#a${{sets.length}}`] = attr;\n      values[`:a${{sets.length}}`] = v;\n      sets.push(`#a${{sets.length}} = :a${{sets.length}}`);\n    }}\n",
            ts_type(&e.name),
            skip.join(", ")
        ));
        if e.stamps {
            if let Some(cr) = &c.created {
                o.push_str(&format!("    names[\"#created\"] = {};\n    values[\":now\"] = now;\n    sets.push(\"#created = if_not_exists(#created, :now)\");\n", ts_str(cr)));
            }
            if let Some(by) = &c.created_by {
                o.push_str(&format!("    names[\"#createdBy\"] = {};\n    values[\":by\"] = scope.userId;\n    sets.push(\"#createdBy = if_not_exists(#createdBy, :by)\");\n", ts_str(by)));
            }
        }
        let mut condition = String::new();
        if let Some(v) = version {
            let current = ts_get("item", v);
            o.push_str(&format!(
                "    names[\"#pk\"] = {};\n    names[\"#version\"] = {};\n    values[\":expected\"] = {current};\n    values[\":next\"] = {current} + 1;\n    sets.push(\"#version = :next\");\n",
                ts_str(&c.pk),
                ts_str(v)
            ));
            condition =
                "      ConditionExpression: \"attribute_not_exists(#pk) OR #version = :expected\",\n".into();
        }
        o.push_str(&format!(
            "    return {{\n      TableName: tableName,\n      Key: keys.{}(item),\n      UpdateExpression: `SET ${{sets.join(\", \")}}`,\n{condition}      ExpressionAttributeNames: names,\n      ExpressionAttributeValues: values,\n      ReturnValues: \"ALL_NEW\",\n    }};\n",
            ts_binding(&e.name)
        ));
    }

    fn create_body(&self, o: &mut String, r: &Resolved<'_>, s: &Shape) {
        let c = &self.design.conventions;
        let e = r.entities[0];
        let ty = ts_type(&e.name);
        self.tenant_check(o, r);
        o.push_str(&format!(
            "    const now = stamp(options);\n    const stored = {{\n      ...stored{ty}(item, now),\n"
        ));
        if let Some(v) = &e.version_field {
            o.push_str(&format!("      {}: 1,\n", ts_prop(e.field(v).map_or(v.as_str(), Field::attr))));
        }
        if e.stamps {
            if let Some(cr) = &c.created {
                o.push_str(&format!("      {}: now,\n", ts_prop(cr)));
            }
            if let Some(by) = &c.created_by {
                o.push_str(&format!("      {}: scope.userId,\n", ts_prop(by)));
            }
        }
        o.push_str("    };\n");
        let put = format!(
            "TableName: tableName,\n      Item: stored,\n      ConditionExpression: \"attribute_not_exists(#pk)\",\n      ExpressionAttributeNames: {{ \"#pk\": {} }},",
            ts_str(&c.pk)
        );
        if *s == Shape::Create {
            o.push_str(&format!("    return {{\n      {put}\n    }};\n"));
            return;
        }
        let b = ts_binding(&e.name);
        o.push_str(&format!("    const key = keys.{b}(item);\n"));
        o.push_str(&format!("    return {{\n      TransactItems: [\n        {{\n          Put: {{\n            {}\n          }},\n        }},\n", put.replace("\n      ", "\n            ")));
        for u in &e.unique {
            let attr = e.field(u).map_or(u.as_str(), Field::attr);
            let guard_pk = format!(
                "`_UNIQUE#{}#{}#${{escapeKey({})}}`",
                ts_template_text(&escape_now(&e.name)),
                ts_template_text(&escape_now(attr)),
                ts_get("item", attr)
            );
            o.push_str(&format!(
                "        {{\n          // The guard item that holds `{u}` unique (S17), as crates/monotable/src/unique.rs writes it.\n          Put: {{\n            TableName: tableName,\n            Item: {{\n              {}: {guard_pk},\n              {}: \"_UNIQUE\",\n              {}: \"_Unique\",\n              {}: {},\n              {}: {},\n            }},\n            ConditionExpression: \"attribute_not_exists(#pk)\",\n            ExpressionAttributeNames: {{ \"#pk\": {} }},\n          }},\n        }},\n",
                ts_prop(&c.pk),
                ts_prop(&c.sk),
                ts_prop(&c.entity_type),
                ts_prop(&format!("owner_{}", c.pk)),
                ts_get("key", &c.pk),
                ts_prop(&format!("owner_{}", c.sk)),
                ts_get("key", &c.sk),
                ts_str(&c.pk)
            ));
        }
        o.push_str("      ],\n    };\n");
    }

    /// The stored names of the fields an update may not change: the table key's, the tenant,
    /// the version and the unique fields (whose guard items would have to move, S17).
    fn fixed(&self, e: &Entity) -> Vec<String> {
        let mut fixed: Vec<String> = Vec::new();
        let mut add = |name: &str| {
            let a = e.field(name).map_or(name, Field::attr).to_string();
            if !fixed.contains(&a) {
                fixed.push(a);
            }
        };
        for t in [&e.pk, &e.sk] {
            if let Ok(t) = Template::parse(t) {
                t.vars().for_each(&mut add);
            }
        }
        e.tenant.iter().for_each(|t| add(&t.field));
        e.version_field.iter().for_each(|v| add(v));
        e.unique.iter().for_each(|u| add(u));
        fixed
    }

    fn changes_type(&self, e: &Entity) -> String {
        let ty = ts_type(&e.name);
        let fixed: Vec<String> = self.fixed(e).iter().map(|a| ts_str(a)).collect();
        if fixed.is_empty() {
            format!("Partial<{ty}Fields>")
        } else {
            format!("Partial<Omit<{ty}Fields, {}>>", fixed.join(" | "))
        }
    }

    fn update_body(
        &self,
        o: &mut String,
        r: &Resolved<'_>,
        value: &dyn Fn(&str) -> String,
    ) -> Result<(), CodegenError> {
        let c = &self.design.conventions;
        let e = r.entities[0];
        o.push_str(&format!(
            "    const names: Record<string, string> = {{ \"#pk\": {} }};\n    const values: Record<string, unknown> = {{}};\n    const sets: string[] = [];\n",
            ts_str(&c.pk)
        ));
        o.push_str("    const set = (attr: string, v: unknown): void => {\n      const n = `#a${sets.length}`;\n      const p = `:a${sets.length}`;\n      names[n] = attr;\n      values[p] = v;\n      sets.push(`${n} = ${p}`);\n    };\n");
        let fixed = self.fixed(e);
        let changeable: Vec<String> =
            e.fields.iter().map(Field::attr).filter(|a| !fixed.iter().any(|f| f == a)).map(ts_str).collect();
        // Only the changeable fields are read: a key, tenant or version smuggled into `changes`
        // past the type is ignored.
        if !changeable.is_empty() {
            o.push_str(&format!(
            "    for (const attr of [{}] as const) {{\n      const v = changes[attr];\n      if (v !== undefined) set(attr, v);\n    }}\n",
            changeable.join(", ")
        ));
        }
        let key_vars: Vec<&str> = r.vars();
        for name in e.indexes.keys() {
            let Some((pk, sk)) = self.index_templates(e, name)? else { continue };
            let Some((pk_attrs, sk_attrs)) = self.design.key_attrs(name) else { continue };
            let ([pk_attr], [sk_attr]) = (pk_attrs.as_slice(), sk_attrs.as_slice()) else { continue };
            let parts = [(pk_attr, Some(pk)), (sk_attr, sk)];
            for (attr, t) in parts {
                let Some(t) = t else { continue };
                if attr == &c.pk {
                    continue;
                }
                let changed: Vec<&str> = t.vars().filter(|v| !key_vars.contains(v)).collect();
                if changed.is_empty() {
                    continue;
                }
                let attr_of = |v: &str| e.field(v).map_or(v, Field::attr).to_string();
                let any: Vec<String> = changed
                    .iter()
                    .map(|v| format!("{} !== undefined", ts_get("changes", &attr_of(v))))
                    .collect();
                let all: Vec<String> = changed
                    .iter()
                    .map(|v| format!("{} === undefined", ts_get("changes", &attr_of(v))))
                    .collect();
                o.push_str(&format!("    if ({}) {{\n", any.join(" || ")));
                if changed.len() > 1 {
                    let listed: Vec<String> = changed.iter().map(|v| attr_of(v)).collect();
                    o.push_str(&format!(
                        "      if ({}) throw new Error({});\n",
                        all.join(" || "),
                        ts_str(&format!(
                            "{attr} is rendered from {}: change them together",
                            listed.join(", ")
                        ))
                    ));
                }
                let val = |v: &str| {
                    if changed.contains(&v) {
                        ts_get("changes", &attr_of(v))
                    } else {
                        value(v)
                    }
                };
                o.push_str(&format!("      set({}, {});\n    }}\n", ts_str(attr), render(&t, &val)));
            }
        }
        // A changed expiry is copied to the table's TTL attribute, as a write copies it.
        if let (Some(t), Some(ttl)) = (&e.ttl, &c.ttl) {
            let attr = e.field(t).map_or(t.as_str(), Field::attr);
            if !fixed.iter().any(|f| f == attr) {
                let v = ts_get("changes", attr);
                o.push_str(&format!("    if ({v} !== undefined) set({}, {v});\n", ts_str(ttl)));
            }
        }
        if let (true, Some(u)) = (e.stamps, &c.updated) {
            o.push_str(&format!("    set({}, stamp(options));\n", ts_str(u)));
        }
        let mut cond = "attribute_exists(#pk)".to_string();
        if let Some(v) = &e.version_field {
            let attr = e.field(v).map_or(v.as_str(), Field::attr);
            o.push_str(&format!(
                "    names[\"#version\"] = {};\n    values[\":one\"] = 1;\n    sets.push(\"#version = #version + :one\");\n    let condition = \"attribute_exists(#pk)\";\n    if (options.expectVersion !== undefined) {{\n      values[\":expected\"] = options.expectVersion;\n      condition += \" AND #version = :expected\";\n    }}\n",
                ts_str(attr)
            ));
            cond = String::new();
        }
        let cond = if cond.is_empty() { "condition".to_string() } else { ts_str(&cond) };
        o.push_str(&format!(
            "    return {{\n      TableName: tableName,\n      Key: {},\n      UpdateExpression: `SET ${{sets.join(\", \")}}`,\n      ConditionExpression: {cond},\n      ExpressionAttributeNames: names,\n      ExpressionAttributeValues: values,\n      ReturnValues: \"ALL_NEW\",\n    }};\n",
            self.full_key(r, value)
        ));
        Ok(())
    }
}

fn op_word(s: Shape) -> &'static str {
    match s {
        Shape::Get => "GetItem",
        Shape::Query => "Query",
        Shape::Create => "PutItem of a new item, only if its key is free (S15)",
        Shape::CreateWithGuards => "TransactWriteItems of a new item and its unique-value guards (S15, S17)",
        Shape::Update => "UpdateItem of an existing item (S16 with `expectVersion`)",
        Shape::Upsert => {
            "UpdateItem that creates or replaces the item, keeping its created stamps (a put, S4, S16)"
        }
        Shape::Delete => "DeleteItem",
    }
}

/// Scopes (S12, S13, S14): the only way to a tenant's partition.
const SCOPES: &str = r#"/** A caller whose credential your service verified (S12). Build it from a verified token's
 * claims only, never from a path, query string or body. */
export interface AuthContext {
  /** The caller's user id (the token's subject). */
  readonly userId: string;
  /** The organisations the caller holds. */
  readonly orgs: readonly string[];
  /** Capabilities, such as "admin" (S14). */
  readonly capabilities: readonly string[];
}

/** Marks the scopes only this module makes: code elsewhere cannot write one by hand. */
const verified: unique symbol = Symbol("monotable verified scope");

/** The caller's own items: the tenant field is the caller's user id. */
export interface OwnerScope {
  readonly kind: "owner";
  readonly userId: string;
  readonly [verified]: true;
}

/** One organisation the caller holds: the tenant field is its id. */
export interface OrgScope {
  readonly kind: "org";
  readonly userId: string;
  readonly orgId: string;
  readonly [verified]: true;
}

/** An administrator, across tenants (S14). */
export interface AdminScope {
  readonly kind: "admin";
  readonly userId: string;
  readonly [verified]: true;
}

/** Refused before anything is sent (S13). */
export class Forbidden extends Error {
  constructor(
    readonly reason: "NotAMember" | "NotAdmin" | "TenantMismatch",
    message: string,
  ) {
    super(message);
    this.name = "Forbidden";
  }
}

/** The caller's own scope. */
export function personalScope(ctx: AuthContext): OwnerScope {
  return { kind: "owner", userId: ctx.userId, [verified]: true };
}

/** The scope of organisation `orgId`; `Forbidden` unless the caller holds it. */
export function orgScope(ctx: AuthContext, orgId: string): OrgScope {
  if (!ctx.orgs.includes(orgId)) {
    throw new Forbidden("NotAMember", `the caller does not hold organisation ${orgId}`);
  }
  return { kind: "org", userId: ctx.userId, orgId, [verified]: true };
}

/** The administrator scope; `Forbidden` without the "admin" capability. */
export function adminScope(ctx: AuthContext): AdminScope {
  if (!ctx.capabilities.includes("admin")) {
    throw new Forbidden("NotAdmin", "the caller lacks the admin capability");
  }
  return { kind: "admin", userId: ctx.userId, [verified]: true };
}

"#;

const ESCAPE: &str = r#"/** A key value as `monotable::escape` writes it: every character up to `#`, and `%`, becomes
 * `%XX`, so a value cannot end a key part early. An empty value is refused. */
export function escapeKey(value: string | number | boolean): string {
  const text = String(value);
  if (text === "") throw new Error("a key value cannot be empty");
  return text.replace(/[\u0000-\u0023%]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"));
}

"#;

const PAGING: &str = r#"/** One page of a Query (S10): at most `limit` items, after `startKey` (the previous page's
 * `LastEvaluatedKey`), newest sort key first with `descending`. */
export interface QueryOptions {
  readonly limit?: number;
  readonly descending?: boolean;
  readonly startKey?: Record<string, unknown>;
}

function paging(o: QueryOptions): Pick<QueryCommandInput, "Limit" | "ScanIndexForward" | "ExclusiveStartKey"> {
  const out: Pick<QueryCommandInput, "Limit" | "ScanIndexForward" | "ExclusiveStartKey"> = {};
  if (o.limit !== undefined) {
    if (!Number.isInteger(o.limit) || o.limit < 1) throw new RangeError("limit must be a positive integer");
    out.Limit = o.limit;
  }
  if (o.descending === true) out.ScanIndexForward = false;
  if (o.startKey !== undefined) out.ExclusiveStartKey = o.startKey;
  return out;
}

"#;

const WRITING: &str = r#"/** The time stamped on a write (S4): `now` (RFC 3339, UTC), the current time when omitted. */
export interface WriteOptions {
  readonly now?: string;
}

/** An update's options: the stamp, and the version the caller read (S16). */
export interface UpdateOptions extends WriteOptions {
  readonly expectVersion?: number;
}

function stamp(o: WriteOptions): string {
  return o.now ?? new Date().toISOString();
}

/** A write whose item names another tenant than its scope is refused before it is sent (S13). */
function sameTenant(scope: string, value: unknown, field: string): void {
  if (value !== scope) {
    throw new Forbidden("TenantMismatch", `the item's ${field} is not the scope's tenant`);
  }
}

"#;
