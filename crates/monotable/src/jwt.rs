//! A JWT [`Verifier`]: HS256 with a shared secret, RS256 with a PEM public key or a JWK set.
//!
//! Claims read: `sub` (caller id, required), `orgs` (array of organisation ids) and `caps`
//! (array of capabilities) or `scope` (space-separated capabilities). `exp` is required and
//! checked; `iss`/`aud` are checked when configured.

use jsonwebtoken::{decode, decode_header, jwk::JwkSet, Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use crate::auth::{AuthContext, Mint, Verifier};
use crate::error::Error;

/// Verifies JSON Web Tokens.
pub struct JwtVerifier {
    keys: Vec<(Option<String>, DecodingKey)>,
    validation: Validation,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier").field("keys", &self.keys.len()).finish()
    }
}

#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    #[serde(default)]
    orgs: Vec<String>,
    #[serde(default)]
    caps: Vec<String>,
    #[serde(default)]
    scope: Option<String>,
}

impl JwtVerifier {
    /// HS256 with a shared secret.
    pub fn hs256(secret: &[u8]) -> Self {
        JwtVerifier {
            keys: vec![(None, DecodingKey::from_secret(secret))],
            validation: Validation::new(Algorithm::HS256),
        }
    }

    /// RS256 with an RSA public key in PEM form.
    pub fn rs256_pem(pem: &[u8]) -> Result<Self, Error> {
        let key =
            DecodingKey::from_rsa_pem(pem).map_err(|e| Error::Config(format!("RSA public key: {e}")))?;
        Ok(JwtVerifier { keys: vec![(None, key)], validation: Validation::new(Algorithm::RS256) })
    }

    /// RS256 with the keys of a JWK set (JSON); tokens pick a key by `kid`.
    pub fn rs256_jwks(jwks_json: &str) -> Result<Self, Error> {
        let set: JwkSet =
            serde_json::from_str(jwks_json).map_err(|e| Error::Config(format!("JWK set: {e}")))?;
        let mut keys = Vec::new();
        for jwk in &set.keys {
            let key = DecodingKey::from_jwk(jwk).map_err(|e| Error::Config(format!("JWK: {e}")))?;
            keys.push((jwk.common.key_id.clone(), key));
        }
        if keys.is_empty() {
            return Err(Error::Config("the JWK set has no keys".into()));
        }
        Ok(JwtVerifier { keys, validation: Validation::new(Algorithm::RS256) })
    }

    /// Requires this issuer.
    pub fn issuer(mut self, iss: &str) -> Self {
        self.validation.set_issuer(&[iss]);
        self
    }

    /// Requires this audience.
    pub fn audience(mut self, aud: &str) -> Self {
        self.validation.set_audience(&[aud]);
        self
    }
}

impl Verifier for JwtVerifier {
    fn verify(&self, token: &str, mint: &Mint) -> Result<AuthContext, Error> {
        let unauth = |m: String| Error::Unauthenticated(m);
        let header = decode_header(token).map_err(|e| unauth(format!("malformed token: {e}")))?;
        let key = match (&header.kid, self.keys.len()) {
            (_, 1) => self.keys.first().map(|(_, k)| k),
            (Some(kid), _) => self.keys.iter().find(|(k, _)| k.as_deref() == Some(kid)).map(|(_, k)| k),
            (None, _) => None,
        }
        .ok_or_else(|| unauth("no key matches the token's kid".into()))?;
        let data = decode::<Claims>(token, key, &self.validation)
            .map_err(|e| unauth(format!("invalid token: {e}")))?;
        let claims = data.claims;
        let caller =
            claims.sub.filter(|s| !s.is_empty()).ok_or_else(|| unauth("the token has no subject".into()))?;
        let mut caps = claims.caps;
        if let Some(scope) = claims.scope {
            caps.extend(scope.split_whitespace().map(str::to_string));
        }
        Ok(mint.issue(caller, claims.orgs, caps))
    }
}
