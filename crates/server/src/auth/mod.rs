//! Request authentication: SigV4, as DynamoDB checks it.
//!
//! [`Auth::AcceptAny`] (the default, like DynamoDB Local) accepts any well-formed SigV4
//! `Authorization` header without knowing the secret. [`Auth::Verify`] also checks the
//! timestamp (5 minutes either way), the credential scope, the access key id and the
//! signature itself against configured key pairs.
//!
//! A request's location is its credential scope's region in the account of its key pair
//! (every key's under [`Auth::AcceptAny`] is [`DEFAULT_ACCOUNT`]).
//!
//! Secrets never leave this module: [`Credentials`]'s `Debug` prints key ids only, and error
//! messages quote only what the client sent.

mod header;
mod sigv4;
mod time;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use monotable_engine::DEFAULT_ACCOUNT;

use crate::headers::{text, RequestHeaders};
use crate::ServerError;

/// How requests are authenticated.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum Auth {
    /// Any well-formed SigV4 `Authorization` header is accepted, as DynamoDB Local does.
    #[default]
    AcceptAny,
    /// Signatures are verified against these key pairs.
    Verify(Credentials),
}

/// Access key id → secret access key pairs for [`Auth::Verify`], each in an account.
#[derive(Clone, Default)]
pub struct Credentials {
    secrets: Arc<HashMap<String, Key>>,
}

#[derive(Clone)]
struct Key {
    secret: String,
    account: String,
}

/// The region and account a request was signed for: where its tables are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Caller<'a> {
    pub region: &'a str,
    pub account: &'a str,
}

/// Why a credentials list could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CredentialsError {
    /// An entry is not `ACCESS_KEY_ID:SECRET[:ACCOUNT]` with the parts non-empty. Only the
    /// position is reported, so that a secret never reaches a log or a terminal.
    #[error("credential #{0} is not of the form ACCESS_KEY_ID:SECRET_ACCESS_KEY[:ACCOUNT_ID]")]
    Malformed(usize),
}

impl Credentials {
    /// No key pairs: every request is refused with `UnrecognizedClientException`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) one key pair of the default account ([`DEFAULT_ACCOUNT`]).
    pub fn with(self, access_key_id: impl Into<String>, secret_access_key: impl Into<String>) -> Self {
        self.with_account(access_key_id, secret_access_key, DEFAULT_ACCOUNT)
    }

    /// Adds (or replaces) one key pair of `account`: requests it signs see that account's
    /// tables, as an AWS account's keys do.
    pub fn with_account(
        mut self,
        access_key_id: impl Into<String>,
        secret_access_key: impl Into<String>,
        account: impl Into<String>,
    ) -> Self {
        let key = Key { secret: secret_access_key.into(), account: account.into() };
        Arc::make_mut(&mut self.secrets).insert(access_key_id.into(), key);
        self
    }

    /// Parses `ID:SECRET` or `ID:SECRET:ACCOUNT` entries separated by commas or whitespace. An
    /// account is twelve digits (an AWS account id); AWS secret keys hold no `:`.
    pub fn parse(list: &str) -> Result<Self, CredentialsError> {
        let mut credentials = Credentials::new();
        for (i, entry) in
            list.split(|c: char| c == ',' || c.is_whitespace()).filter(|e| !e.is_empty()).enumerate()
        {
            let (pair, account) = match entry.rsplit_once(':') {
                Some((pair, account))
                    if pair.contains(':')
                        && account.len() == 12
                        && account.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    (pair, account)
                }
                _ => (entry, DEFAULT_ACCOUNT),
            };
            match pair.split_once(':') {
                Some((id, secret)) if !id.is_empty() && !secret.is_empty() => {
                    credentials = credentials.with_account(id, secret, account)
                }
                _ => return Err(CredentialsError::Malformed(i + 1)),
            }
        }
        Ok(credentials)
    }

    /// The number of key pairs.
    pub fn len(&self) -> usize {
        self.secrets.len()
    }

    /// True when no key pair is configured.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut ids: Vec<&String> = self.secrets.keys().collect();
        ids.sort();
        f.debug_struct("Credentials").field("access_key_ids", &ids).finish_non_exhaustive()
    }
}

/// How far a request's timestamp may be from the server's clock. DynamoDB allowed 15 minutes
/// until about 2015 and allows 5 now: "Signature expired: ... is now earlier than ... (... -
/// 5 min.)" (aws-sdk-js-v3 issue #7605, DynamoDB, December 2025; issue #5192: a request sent
/// 305 s after signing fails, one sent within 300 s passes).
const SKEW_SECONDS: i64 = 5 * 60;

impl Auth {
    /// Authenticates one request and tells where it was signed for. `now` reads the server's
    /// clock in Unix seconds; it is called only when signatures are verified (accepting any
    /// well-formed header needs no clock).
    pub(crate) fn check<'a>(
        &'a self,
        parts: &http::request::Parts,
        headers: &RequestHeaders<'a>,
        body: &[u8],
        now: impl FnOnce() -> i64,
    ) -> Result<Caller<'a>, ServerError> {
        let date = text(headers.amz_date).or_else(|| text(headers.date));
        let auth = header::parse(text(headers.authorization), date)?;
        let Auth::Verify(credentials) = self else {
            return Ok(Caller { region: auth.region, account: DEFAULT_ACCOUNT });
        };
        let now = now();

        if auth.timestamp < now - SKEW_SECONDS {
            return Err(ServerError::InvalidSignature(format!(
                "Signature expired: {} is now earlier than {} ({} - 5 min.)",
                auth.date,
                time::format_amz_date(now - SKEW_SECONDS),
                time::format_amz_date(now)
            )));
        }
        if auth.timestamp > now + SKEW_SECONDS {
            return Err(ServerError::InvalidSignature(format!(
                "Signature not yet current: {} is still later than {} ({} + 5 min.)",
                auth.date,
                time::format_amz_date(now + SKEW_SECONDS),
                time::format_amz_date(now)
            )));
        }
        if !auth.signed_headers.split(';').any(|h| h.eq_ignore_ascii_case("host")) {
            return Err(ServerError::InvalidSignature(
                "'Host' must be a 'SignedHeader' in the AWS Authorization.".into(),
            ));
        }
        check_scope(&auth)?;
        let key = credentials.secrets.get(auth.key_id).ok_or(ServerError::UnrecognizedClient)?;
        if !sigv4::signature_matches(parts, body, &auth, &key.secret) {
            return Err(ServerError::InvalidSignature(
                "The request signature we calculated does not match the signature you provided. \
                 Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
                    .into(),
            ));
        }
        Ok(Caller { region: auth.region, account: &key.account })
    }
}

/// The credential scope must name a region, the `dynamodb` service, the `aws4_request`
/// terminator and the request's date; DynamoDB lists every mismatch in one message.
fn check_scope(auth: &header::Authorization<'_>) -> Result<(), ServerError> {
    let mut message = String::new();
    if auth.region.is_empty() {
        message.push_str(&format!("Credential should be scoped to a valid region, not '{}'. ", auth.region));
    }
    if auth.service != "dynamodb" {
        message.push_str("Credential should be scoped to correct service: 'dynamodb'. ");
    }
    if auth.terminator != "aws4_request" {
        message.push_str(&format!(
            "Credential should be scoped with a valid terminator: 'aws4_request', not '{}'. ",
            auth.terminator
        ));
    }
    let day = auth.date.get(..8).unwrap_or(auth.date);
    if auth.scope_date != day {
        message.push_str(&format!(
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '{}' != '{day}', from '{}'.",
            auth.scope_date, auth.date
        ));
    }
    if message.is_empty() {
        Ok(())
    } else {
        Err(ServerError::InvalidSignature(message.trim_end().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_debug_never_shows_a_secret() {
        let c = Credentials::parse("AKID1:topsecret1, AKID2:topsecret2").unwrap();
        let shown = format!("{c:?} {:?}", Auth::Verify(c.clone()));
        assert!(shown.contains("AKID1") && shown.contains("AKID2"), "{shown}");
        assert!(!shown.contains("topsecret"), "{shown}");
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn malformed_credentials_report_position_not_content() {
        let e = Credentials::parse("A:b,onlyid,C:d").unwrap_err();
        assert_eq!(e, CredentialsError::Malformed(2));
        assert!(!e.to_string().contains("onlyid"));
        assert_eq!(Credentials::parse(":secret").unwrap_err(), CredentialsError::Malformed(1));
    }

    #[test]
    fn a_twelve_digit_third_part_is_the_keys_account() {
        let c = Credentials::parse("A:s:123456789012,B:t,C:u:v").unwrap();
        let account = |id: &str| c.secrets[id].account.clone();
        assert_eq!((account("A"), c.secrets["A"].secret.as_str()), ("123456789012".into(), "s"));
        assert_eq!(account("B"), DEFAULT_ACCOUNT);
        assert_eq!((account("C"), c.secrets["C"].secret.as_str()), (DEFAULT_ACCOUNT.into(), "u:v"));
    }
}
