//! The design's table in a fresh engine, from [`TableShape::desired`] (the shape `design apply`
//! creates), loaded with the samples.

use monotable_design::deploy::TableShape;
use monotable_design::{Design, Projection};
use monotable_engine::{
    AttributeDefinition, CreateTableInput, Engine, GlobalSecondaryIndex, KeySchemaElement,
    LocalSecondaryIndex, PutItemInput,
};

use crate::error::RunError;
use crate::sample::Samples;

/// The table's name in the engine: the design's name in stage `validate`.
pub(crate) fn name(design: &Design) -> String {
    design.table_name("validate")
}

fn key_schema(hash: &[String], range: &[String]) -> Vec<KeySchemaElement> {
    let element =
        |a: &String, t: &str| KeySchemaElement { attribute_name: Some(a.clone()), key_type: Some(t.into()) };
    hash.iter().map(|a| element(a, "HASH")).chain(range.iter().map(|a| element(a, "RANGE"))).collect()
}

fn projection(p: &Projection) -> monotable_engine::Projection {
    let (ty, attrs) = match p {
        Projection::All => ("ALL", None),
        Projection::KeysOnly => ("KEYS_ONLY", None),
        Projection::Include(a) => ("INCLUDE", Some(a.clone())),
    };
    monotable_engine::Projection { projection_type: Some(ty.into()), non_key_attributes: attrs }
}

/// A fresh engine holding the design's table (on demand: capacity is measured, not limited).
pub(crate) fn create(design: &Design) -> Result<Engine, RunError> {
    let shape = TableShape::desired(design, &name(design));
    let engine = Engine::new();
    let gsis: Vec<GlobalSecondaryIndex> = shape
        .gsis
        .iter()
        .map(|i| GlobalSecondaryIndex {
            index_name: Some(i.name.clone()),
            key_schema: Some(key_schema(&i.hash, &i.range)),
            projection: Some(projection(&i.projection)),
            ..Default::default()
        })
        .collect();
    let lsis: Vec<LocalSecondaryIndex> = shape
        .lsis
        .iter()
        .map(|i| LocalSecondaryIndex {
            index_name: Some(i.name.clone()),
            key_schema: Some(key_schema(&i.hash, &i.range)),
            projection: Some(projection(&i.projection)),
        })
        .collect();
    let input = CreateTableInput {
        table_name: Some(shape.name.clone()),
        attribute_definitions: Some(
            shape
                .attributes
                .iter()
                .map(|(a, t)| AttributeDefinition {
                    attribute_name: Some(a.clone()),
                    attribute_type: Some(t.clone()),
                })
                .collect(),
        ),
        key_schema: Some(key_schema(std::slice::from_ref(&shape.hash), shape.range.as_slice())),
        global_secondary_indexes: (!gsis.is_empty()).then_some(gsis),
        local_secondary_indexes: (!lsis.is_empty()).then_some(lsis),
        billing_mode: Some("PAY_PER_REQUEST".into()),
        ..Default::default()
    };
    engine.create_table(input).map_err(|e| RunError::Engine(format!("CreateTable: {e}")))?;
    Ok(engine)
}

/// Puts every sample item.
pub(crate) fn load(engine: &Engine, design: &Design, samples: &Samples) -> Result<(), RunError> {
    for s in &samples.items {
        let input =
            PutItemInput { table_name: Some(name(design)), item: Some(s.item.clone()), ..Default::default() };
        engine
            .put_item(input)
            .map_err(|e| RunError::Engine(format!("PutItem of a {} sample: {e}", s.type_name)))?;
    }
    Ok(())
}
