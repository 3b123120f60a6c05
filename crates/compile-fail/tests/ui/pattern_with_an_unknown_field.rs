// A pattern's sort condition and filters name real fields.
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id,
         pattern(name = "recent", query, begins_with = "RECORD#{day}"))]
struct Record {
    org_id: String,
    id: String,
}

fn main() {}
