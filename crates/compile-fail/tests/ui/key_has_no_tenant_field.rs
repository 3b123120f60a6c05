// S12: a key never carries the tenant; it always comes from the scope.
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id)]
struct Record {
    org_id: String,
    id: String,
}

fn main() {
    let _key = RecordKey { org_id: "other-org".into(), id: "r1".into() };
}
