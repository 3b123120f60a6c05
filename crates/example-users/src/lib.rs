//! Users, posts and comments in one table (S1–S6, S12–S17).
//!
//! Access patterns and the keys that serve them:
//! | pattern                         | where | key                                          |
//! |---------------------------------|-------|----------------------------------------------|
//! | a user's profile                | table | `USER#{user_id}` / `PROFILE`                 |
//! | a user's posts, newest first    | table | `USER#{user_id}` / `POST#{post_id}`          |
//! | a post's comments               | table | `USER#{user_id}` / `COMMENT#{post_id}#{id}`  |
//! | a user and their posts at once  | table | one Query over `USER#{user_id}` (collection) |
//! | get user by email (login)       | GSI1  | `EMAIL#{email}` / `USER`                     |
//! | admin: list all users           | GSI2  | `USERS` / `USER#{user_id}`                   |
//!
//! Post ids are time-ordered (`2024-05-01T10:00:00Z-<n>`), so the sort key orders posts by time.

use monotable::design::{AccessPattern, TABLE};
use monotable::{
    authenticate, AuthContext, Collection, Conventions, CursorKey, Entity, Error, Keys, Mint, Page, Query,
    Sort, Table, TableName, Verifier,
};
use serde::{Deserialize, Serialize};

/// A user profile; the email is unique and validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity, garde::Validate)]
#[serde(rename_all = "camelCase")]
#[entity(pk = "USER#{user_id}", sk = "PROFILE", owner = user_id, unique(email), validate,
         gsi1(pk = "EMAIL#{email}", sk = "USER"), gsi2(pk = "USERS", sk = "USER#{user_id}"),
         pattern(name = "get-user", get),
         pattern(name = "create-user", transact_write),
         pattern(name = "get-user-by-email", query, index = gsi1, sk = "USER", admin),
         pattern(name = "list-users", query, index = gsi2, admin))]
pub struct User {
    #[garde(length(min = 1, max = 64))]
    pub user_id: String,
    #[garde(email)]
    pub email: String,
    #[garde(length(min = 1, max = 100))]
    pub name: String,
}

/// A post in its author's partition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
#[entity(pk = "USER#{user_id}", sk = "POST#{post_id}", owner = user_id,
         pattern(name = "create-post", put),
         pattern(name = "list-posts", query, begins_with = "POST#"))]
pub struct Post {
    pub user_id: String,
    pub post_id: String,
    pub title: String,
}

/// A comment on a post, stored with the post's author.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
#[entity(pk = "USER#{user_id}", sk = "COMMENT#{post_id}#{comment_id}", owner = user_id,
         pattern(name = "create-comment", put),
         pattern(name = "list-comments-on-post", query, begins_with = "COMMENT#{post_id}"))]
pub struct Comment {
    pub user_id: String,
    pub post_id: String,
    pub comment_id: String,
    pub author: String,
    pub text: String,
}

/// Everything in a user's partition, decoded by entity type.
#[derive(Debug, Clone, PartialEq, Collection)]
pub enum UserItem {
    /// The profile.
    User(User),
    /// A post.
    Post(Post),
    /// A comment.
    Comment(Comment),
}

/// A toy verifier: fixed API keys. Real services use [`monotable::JwtVerifier`].
pub struct ApiKeys;

impl Verifier for ApiKeys {
    fn verify(&self, credential: &str, mint: &Mint) -> Result<AuthContext, Error> {
        match credential.split_once(':') {
            Some(("user", id)) if !id.is_empty() => Ok(mint.issue(id, [], [])),
            Some(("admin", id)) if !id.is_empty() => Ok(mint.issue(id, [], [monotable::ADMIN.to_string()])),
            _ => Err(Error::Unauthenticated("unknown API key".into())),
        }
    }
}

/// The application's table.
pub async fn table(client: monotable::dynamodb::Client, name: &str) -> Result<Table, Error> {
    Table::builder(client)
        .conventions(Conventions::upper())
        .name(TableName::resolved(name))
        .gsi(1)
        .gsi(2)
        .entity::<User>()
        .entity::<Post>()
        .entity::<Comment>()
        .design_names("example", "users", "users")
        // Single-entity patterns are declared on the entities; the collection is declared here.
        .access_pattern(
            AccessPattern::query("user-partition", TABLE, "USER#{user_id}")
                .of("User")
                .of("Post")
                .of("Comment")
                .collection(),
        )
        .accept(
            "MT004",
            "User.GSI2",
            "admin-only listing of a small user base; one partition is enough (S14)",
        )
        .cursor_key(CursorKey::new(b"example-users-cursor-key-32bytes")?)
        .build()
        .await
}

/// What the scenario observed.
#[derive(Debug, PartialEq)]
pub struct Report {
    /// Found by email on GSI1.
    pub by_email: Option<String>,
    /// Titles of alice's posts, newest first.
    pub posts: Vec<String>,
    /// Comments on alice's first post.
    pub comments: usize,
    /// Items in alice's partition.
    pub partition_items: usize,
    /// User ids listed by the admin, page by page.
    pub admin_pages: Vec<Vec<String>>,
    /// Whether a second account with alice's email was refused.
    pub duplicate_email_refused: bool,
}

/// Runs the example on any client.
pub async fn run(client: monotable::dynamodb::Client) -> Result<Report, Error> {
    let table = table(client, "example-users-dev").await?;
    table.create_for_development().await?;
    for id in ["alice", "bob", "carol"] {
        let me = authenticate(&ApiKeys, &format!("user:{id}"))?;
        let user = User { user_id: id.into(), email: format!("{id}@example.com"), name: id.to_uppercase() };
        table.repo::<User>(&me.personal())?.create(&user).await?;
    }
    let alice = authenticate(&ApiKeys, "user:alice")?;
    let posts = table.repo::<Post>(&alice.personal())?;
    for (i, t) in ["Hello", "Second", "Third"].iter().enumerate() {
        let post = Post {
            user_id: "alice".into(),
            post_id: format!("2024-05-0{}T10:00:00Z-{i}", i + 1),
            title: (*t).into(),
        };
        posts.create(&post).await?;
    }
    let comments = table.repo::<Comment>(&alice.personal())?;
    let first = "2024-05-01T10:00:00Z-0";
    for n in 0..2 {
        let c = Comment {
            user_id: "alice".into(),
            post_id: first.into(),
            comment_id: format!("c{n}"),
            author: "alice".into(),
            text: "nice".into(),
        };
        comments.create(&c).await?;
    }
    let bob_dup = authenticate(&ApiKeys, "user:mallory")?;
    let dup = User { user_id: "mallory".into(), email: "alice@example.com".into(), name: "M".into() };
    let duplicate_email_refused = matches!(
        table.repo::<User>(&bob_dup.personal())?.create(&dup).await,
        Err(Error::Conflict { reason: monotable::ConflictReason::UniqueTaken { .. }, .. })
    );

    let newest_first: Page<Post> = posts.query(Query::table().descending()).await?;
    let on_first = comments
        .query(Query::table().sort(Sort::eq(Keys::new().with(Comment::FIELDS.post_id, first))))
        .await?;
    let anchor = UserKey {};
    let partition = table.collection::<UserItem, _>(&alice.personal(), &anchor, 100, None).await?;

    // Login by email and the user listing are admin (cross-tenant) access paths (S14).
    let admin = authenticate(&ApiKeys, "admin:ops")?.admin()?;
    let all_users = table.repo::<User>(&admin.global())?;
    let by_email = all_users
        .query(Query::index("gsi1").partition(Keys::new().with(User::FIELDS.email, "bob@example.com")))
        .await?
        .items
        .into_iter()
        .next()
        .map(|u| u.user_id);
    let mut admin_pages = Vec::new();
    let mut cursor = None;
    loop {
        let page = all_users.query(Query::index("gsi2").limit(2).after(cursor.as_deref())).await?;
        admin_pages.push(page.items.into_iter().map(|u| u.user_id).collect());
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    Ok(Report {
        by_email,
        posts: newest_first.items.into_iter().map(|p| p.title).collect(),
        comments: on_first.items.len(),
        partition_items: partition.items.len(),
        admin_pages,
        duplicate_email_refused,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn scenario_runs_on_the_embedded_engine() {
        let report = run(monotable::embedded::client()).await.unwrap();
        assert_eq!(report.by_email.as_deref(), Some("bob"));
        assert_eq!(report.posts, vec!["Third", "Second", "Hello"]);
        assert_eq!(report.comments, 2);
        assert_eq!(report.partition_items, 1 + 3 + 2);
        assert_eq!(report.admin_pages, vec![vec!["alice", "bob"], vec!["carol"]]);
        assert!(report.duplicate_email_refused);
    }

    #[tokio::test]
    async fn code_matches_the_checked_in_design() {
        let table = table(monotable::embedded::client(), "example-users-dev").await.unwrap();
        monotable::design::assert_matches_file(&table, concat!(env!("CARGO_MANIFEST_DIR"), "/design.yaml"));
    }

    #[test]
    fn non_admin_cannot_list_users() {
        let me = authenticate(&ApiKeys, "user:alice").unwrap();
        assert!(matches!(me.admin(), Err(Error::Forbidden(_))));
    }
}
