// An access pattern names exactly one operation.
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id, pattern(name = "list-records"))]
struct Record {
    org_id: String,
    id: String,
}

fn main() {}
