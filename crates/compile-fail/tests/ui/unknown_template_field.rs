// S5: key templates are checked at compile time.
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org}", sk = "RECORD#{id}")]
struct Record {
    org_id: String,
    id: String,
}

fn main() {}
