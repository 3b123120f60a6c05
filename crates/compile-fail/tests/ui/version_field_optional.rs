// An `Option` version is refused: `put` requires the version of every item it writes (a
// `None` could never be stored), so the field is always present.
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id, version = version)]
struct Record {
    org_id: String,
    id: String,
    version: Option<i64>,
}

fn main() {}
