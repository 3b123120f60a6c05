//! An editor save of an entity as the library saves it, when a design is loaded.
//!
//! Without this, a save from the console would leave the entity's version and updated stamp as
//! they were, and an application still holding that version would overwrite the console's edit
//! without a conflict. So, for an item whose entity type declares a `version_field` (S16):
//! the save is conditional on the version read (the editor's guard already requires every
//! attribute read, the version among them, or its absence when the item had none), and writes
//! the version read plus one, whatever the form says. With stamps on (S4, the default), the
//! design's `updated` attribute gets the library's stamp for now (`monotable::stamp_now`).

use aws_sdk_dynamodb::types::AttributeValue as Av;
use monotable_design::Design;

use crate::error::ApiError;
use crate::single::entity_of;
use crate::value::SdkItem;

/// What the save adds to the guard: the version attribute, when the item read had none.
pub(super) struct Versioned {
    pub absent_version: Option<String>,
}

/// Rewrites `item` (the form's item) for a save of `read` (the item as the page read it).
pub(super) fn stamp(design: &Design, read: &SdkItem, item: &mut SdkItem) -> Result<Versioned, ApiError> {
    let Some(entity) = entity_of(design, read) else { return Ok(Versioned { absent_version: None }) };
    let mut absent_version = None;
    if let Some(field) = &entity.version_field {
        let attr = entity.field(field).map_or(field.as_str(), |f| f.attr()).to_string();
        let current = match read.get(&attr) {
            None => {
                absent_version = Some(attr.clone());
                0
            }
            Some(Av::N(n)) => n.parse::<i64>().map_err(|_| not_a_version(&entity.name, &attr, n))?,
            Some(other) => return Err(not_a_version(&entity.name, &attr, &format!("{other:?}"))),
        };
        let next = current.checked_add(1).ok_or_else(|| not_a_version(&entity.name, &attr, "i64::MAX"))?;
        item.insert(attr, Av::N(next.to_string()));
    }
    if entity.stamps {
        if let Some(updated) = &design.conventions.updated {
            item.insert(updated.clone(), Av::S(monotable::stamp_now()));
        }
    }
    Ok(Versioned { absent_version })
}

fn not_a_version(entity: &str, attr: &str, value: &str) -> ApiError {
    ApiError::bad(format!(
        "{entity}'s version attribute `{attr}` holds {value}, not an integer version; the design \
         declares it as the entity's version_field, so the console will not save this item"
    ))
}
