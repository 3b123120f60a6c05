// GetItem reads the table's key; only a query reads an index.
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id,
         gsi1(pk = "STATUS#{status}"),
         pattern(name = "by-status", get, index = gsi1))]
struct Record {
    org_id: String,
    id: String,
    status: String,
}

fn main() {}
