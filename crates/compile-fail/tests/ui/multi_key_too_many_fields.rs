// A multi-attribute key part has at most four fields (DynamoDB's limit).
use monotable::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "T#{id}", tenant = org_id,
         gsi1(pk = [org_id], sk = [queue, status, priority, id, org_id]))]
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
