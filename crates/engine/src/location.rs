//! [`Location`]: the account and region an engine's tables live in.
//!
//! DynamoDB keeps a table in one region of one account: the same name in another region is
//! another table, and ARNs carry both ("Identity and access management: resource ARNs",
//! `arn:${Partition}:dynamodb:${Region}:${Account}:table/${TableName}`). One [`crate::Engine`] is
//! one such namespace; a server that separates regions runs one engine per location.

use std::fmt;

/// The region an engine is in unless told otherwise: the AWS SDKs' usual default, and the
/// region every table of a data directory written before locations existed is in.
pub const DEFAULT_REGION: &str = "us-east-1";

/// The account an engine is in unless told otherwise (DynamoDB Local's account id).
pub const DEFAULT_ACCOUNT: &str = "000000000000";

/// The account and region of an engine's tables, as its ARNs name them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Location {
    region: String,
    account: String,
}

impl Location {
    /// The location `region` of `account`.
    pub fn new(region: impl Into<String>, account: impl Into<String>) -> Location {
        Location { region: region.into(), account: account.into() }
    }

    /// `region` of the default account.
    pub fn region(region: impl Into<String>) -> Location {
        Location::new(region, DEFAULT_ACCOUNT)
    }

    /// The region's name, as the credential scope of a request gives it.
    pub fn region_name(&self) -> &str {
        &self.region
    }

    /// The twelve-digit account id.
    pub fn account(&self) -> &str {
        &self.account
    }

    /// True for the default region of the default account.
    pub fn is_default(&self) -> bool {
        self.region == DEFAULT_REGION && self.account == DEFAULT_ACCOUNT
    }

    /// The ARN of the table `name` here.
    pub fn table_arn(&self, name: &str) -> String {
        format!("arn:aws:dynamodb:{}:{}:table/{name}", self.region, self.account)
    }
}

impl Default for Location {
    fn default() -> Location {
        Location::new(DEFAULT_REGION, DEFAULT_ACCOUNT)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (account {})", self.region, self.account)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arns_name_the_region_and_the_account() {
        assert_eq!(
            Location::new("eu-west-2", "123456789012").table_arn("Music"),
            "arn:aws:dynamodb:eu-west-2:123456789012:table/Music"
        );
        assert_eq!(Location::default().table_arn("T"), "arn:aws:dynamodb:us-east-1:000000000000:table/T");
        assert!(Location::default().is_default() && !Location::region("eu-west-1").is_default());
    }
}
