// S12: a handler cannot get a tenant repository from an org id taken from the request.
use monotable::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id)]
struct Record {
    org_id: String,
    id: String,
}

fn handler(table: &Table, org_id_from_path: &str) {
    let _repo = table.repo::<Record>(org_id_from_path);
}

fn main() {}
