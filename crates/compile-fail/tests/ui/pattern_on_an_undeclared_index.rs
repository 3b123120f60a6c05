// An access pattern declared on an entity may only name an index the entity has keys on.
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id,
         gsi1(pk = "STATUS#{status}"),
         pattern(name = "by-owner", query, index = gsi2))]
struct Record {
    org_id: String,
    id: String,
    status: String,
}

fn main() {}
