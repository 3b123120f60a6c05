//! Table ARNs where a table name is accepted.
//!
//! DynamoDB accepts a table's ARN in every `TableName` member (the API reference types them
//! `TableArn`: "You can also provide the Amazon Resource Name (ARN) of the table in this
//! parameter"), and answers as if the bare name had been given: responses and errors name the
//! table by its name. monotable resolves ARNs in one place, the table lookup, so every
//! operation accepts them alike.
//!
//! Not emulated: DynamoDB refuses an ARN of another region (ValidationException) or account
//! (AccessDeniedException); an engine accepts a table ARN of any region and account as a
//! `TableName` and looks the name up among its own tables. (The tag operations' `ResourceArn`
//! is checked: another account's is refused, `engine/ops/control/misc.rs`.)

/// The table name inside a table ARN (`arn:<partition>:dynamodb:<region>:<account>:table/<name>`),
/// or `None` when `arn` is not a table ARN (an index or stream ARN, another service, a name).
pub(crate) fn arn_table_name(arn: &str) -> Option<&str> {
    let rest = arn.strip_prefix("arn:")?;
    let mut parts = rest.splitn(5, ':');
    let (_partition, service, _region, _account, resource) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if service != "dynamodb" {
        return None;
    }
    resource.strip_prefix("table/").filter(|n| !n.is_empty() && !n.contains('/'))
}

/// The table name a `TableName` member means: the name inside a table ARN, or the value itself.
pub(crate) fn table_name_of(name: &str) -> &str {
    arn_table_name(name).unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_arns_name_their_table_and_other_strings_name_nothing() {
        for (arn, name) in [
            ("arn:aws:dynamodb:us-east-1:000000000000:table/Music", Some("Music")),
            ("arn:aws-cn:dynamodb:cn-north-1:123456789012:table/a.b-c_d", Some("a.b-c_d")),
            ("arn:aws:dynamodb:us-east-1:000000000000:table/Music/index/ByArtist", None),
            ("arn:aws:dynamodb:us-east-1:000000000000:table/Music/stream/2024", None),
            ("arn:aws:dynamodb:us-east-1:000000000000:table/", None),
            ("arn:aws:s3:us-east-1:000000000000:table/Music", None),
            ("arn:aws:dynamodb:us-east-1", None),
            ("Music", None),
        ] {
            assert_eq!(arn_table_name(arn), name, "{arn}");
        }
        assert_eq!(table_name_of("Music"), "Music");
        assert_eq!(table_name_of("arn:aws:dynamodb:us-east-1:000000000000:table/Music"), "Music");
    }
}
