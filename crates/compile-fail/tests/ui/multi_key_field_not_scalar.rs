// A multi-attribute key field is stored as S or N: a float or a list is refused.
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "T#{id}", tenant = org_id,
         gsi1(pk = [org_id], sk = [tags]))]
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
