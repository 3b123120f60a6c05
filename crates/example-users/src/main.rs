//! Runs the users example on the embedded engine and prints what it saw.

#[tokio::main]
async fn main() -> Result<(), monotable::Error> {
    let report = monotable_example_users::run(monotable::embedded::client()).await?;
    println!("{report:#?}");
    Ok(())
}
