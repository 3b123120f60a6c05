// An index is keyed either by templates or by field lists.
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "T#{id}", tenant = org_id,
         gsi1(pk = [org_id, queue], sk = "T#{id}"))]
struct Ticket {
    org_id: String,
    id: String,
    queue: Option<String>,
    status: String,
    priority: i64,
    score: f64,
    tags: Vec<String>,
}

fn main() {}
