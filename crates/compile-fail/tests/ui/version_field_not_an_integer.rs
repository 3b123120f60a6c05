// A `String` version compiled, and `create` then stored a number the item could never be read
// back from (the library writes the version as N 1, then one more per write).
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id, version = version)]
struct Record {
    org_id: String,
    id: String,
    version: String,
}

fn main() {}
