//! The verifier on static keys: every check's refusal, the claims' principal, algorithm confusion. The fetched keys
//! (discovery, rotation, the `kid` flood, a provider down) are tested against a real provider in
//! `tests/tests/jwt.rs`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{EncodingKey, Header, encode};
use serde_json::{Value, json};
use std::time::Duration;

use super::*;

const SECRET: &[u8] = b"test-only secret, never a real one";

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn claims() -> Value {
    json!({"sub": "alice", "iss": "https://id.test", "aud": ["other", "blog"], "exp": now() + 300,
           "scope": "posts:read posts:write", "realm_access": {"roles": ["admin"]}})
}

fn sign(claims: &Value) -> String {
    encode(&Header::new(Algorithm::HS256), claims, &EncodingKey::from_secret(SECRET).unwrap()).unwrap()
}

fn hmac() -> Jwt {
    let config = JwtConfig::hmac_secret(SECRET)
        .expect_issuer("https://id.test")
        .audience("blog")
        .leeway(Duration::from_secs(5))
        .roles_claim("realm_access.roles")
        .staff_role("admin");
    Jwt::new(config).unwrap()
}

async fn refusal(jwt: &Jwt, token: &str) -> String {
    let error = jwt.verify(token).await.unwrap_err();
    assert_eq!(error.status(), 401, "{error}");
    error.body()["detail"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_valid_token_is_its_principal() {
    let principal = hmac().verify(&sign(&claims())).await.unwrap();
    assert_eq!(principal.user_id.as_deref(), Some("alice"));
    assert!(principal.is_staff && principal.has_scope("posts:write") && principal.has_role("admin"));
}

#[tokio::test]
async fn each_failed_check_is_named() {
    let jwt = hmac();
    let with = |change: &dyn Fn(&mut Value)| {
        let mut claims = claims();
        change(&mut claims);
        sign(&claims)
    };
    let cases: [(&str, String); 7] = [
        ("expired", with(&|c| c["exp"] = json!(now() - 60))),
        ("not valid yet", with(&|c| c["nbf"] = json!(now() + 60))),
        ("another audience", with(&|c| c["aud"] = json!("shop"))),
        ("another issuer", with(&|c| c["iss"] = json!("https://evil.test"))),
        ("`exp`", with(&|c| drop(c.as_object_mut().unwrap().remove("exp")))),
        ("`aud`", with(&|c| drop(c.as_object_mut().unwrap().remove("aud")))),
        ("`sub`", with(&|c| drop(c.as_object_mut().unwrap().remove("sub")))),
    ];
    for (check, token) in cases {
        let detail = refusal(&jwt, &token).await;
        assert!(detail.contains(check), "{check}: {detail}");
        assert!(!detail.contains(&token[..20]), "never the token");
    }
    // Within the leeway, an expired token still passes.
    assert!(jwt.verify(&with(&|c| c["exp"] = json!(now() - 2))).await.is_ok());
}

#[tokio::test]
async fn forged_signatures_and_shapes_are_refused() {
    let jwt = hmac();
    let token = sign(&claims());
    let (message, _) = token.rsplit_once('.').unwrap();
    let forged = format!("{message}.{}", URL_SAFE_NO_PAD.encode([7u8; 32]));
    assert!(refusal(&jwt, &forged).await.contains("signature is invalid"));
    let other_secret =
        encode(&Header::new(Algorithm::HS256), &claims(), &EncodingKey::from_secret(b"x").unwrap()).unwrap();
    assert!(refusal(&jwt, &other_secret).await.contains("signature is invalid"));
    let (head, payload) = message.split_once('.').unwrap();
    let tampered_claims = URL_SAFE_NO_PAD.encode(json!({"sub": "root", "exp": now() + 300}).to_string());
    let tampered = format!("{head}.{tampered_claims}.{}", token.rsplit('.').next().unwrap());
    assert!(refusal(&jwt, &tampered).await.contains("signature is invalid"));
    let none = format!("{}.{payload}.", URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#));
    assert!(refusal(&jwt, &none).await.contains("unsigned"));
    assert!(refusal(&jwt, &"a".repeat(9000)).await.contains("too large"));
    for malformed in ["", "x", "a.b.c", "ey!.ey!.ey!", "e30.e30.e30", "\u{0}.\u{0}.\u{0}"] {
        assert!(refusal(&jwt, malformed).await.contains("malformed"), "{malformed:?}");
    }
    let pinned = Jwt::new(JwtConfig::hmac_secret(SECRET).any_audience().algorithms(["RS256"])).unwrap();
    assert!(refusal(&pinned, &token).await.contains("HS256 is not allowed"));
}

/// The RSA public key of RFC 7517's appendix A.1 example.
const RSA_N: &str = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw";

#[tokio::test]
async fn an_hmac_token_made_with_the_rsa_public_key_is_refused() {
    let jwk = json!({"kty": "RSA", "kid": "rsa-1", "n": RSA_N, "e": "AQAB"});
    let jwt = Jwt::new(JwtConfig::jwks(json!({"keys": [jwk]}).to_string()).any_audience()).unwrap();
    // The classic confusion: the verifier's public key (here its JWK text and its modulus) used as an HMAC secret.
    for secret in [jwk.to_string().into_bytes(), URL_SAFE_NO_PAD.decode(RSA_N).unwrap()] {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("rsa-1".into());
        let token = encode(&header, &claims(), &EncodingKey::from_secret(&secret).unwrap()).unwrap();
        assert!(refusal(&jwt, &token).await.contains("does not sign with HS256"));
    }
    let mut unknown = Header::new(Algorithm::RS256);
    unknown.kid = Some("rsa-2".into());
    let token = format!("{}.e30.c2ln", URL_SAFE_NO_PAD.encode(serde_json::to_string(&unknown).unwrap()));
    assert!(refusal(&jwt, &token).await.contains("signing key is unknown"));
}

#[tokio::test]
async fn a_provider_never_reached_answers_503_with_retry_after() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let config = JwtConfig::issuer(format!("http://127.0.0.1:{port}"))
        .audience("blog")
        .refetch_interval(Duration::from_secs(30))
        .timeout(Duration::from_secs(2));
    let jwt = Jwt::new(config).unwrap();
    let token = sign(&claims());
    for _ in 0..2 {
        match jwt.verify(&token).await.unwrap_err() {
            ApiError::IdentityProviderUnavailable { retry_after } => assert!((1..=30).contains(&retry_after)),
            other => panic!("not a 503: {other}"),
        }
    }
    // A malformed token is refused before the keys are asked for.
    assert_eq!(jwt.verify("junk").await.unwrap_err().status(), 401);
}

#[test]
fn configurations_that_cannot_work_are_errors() {
    let error = |config: JwtConfig| Jwt::new(config).err().unwrap();
    assert!(error(JwtConfig::issuer("https://id.example.com")).contains("no audience"));
    assert!(error(JwtConfig::hmac_secret("s")).contains("no audience"), "static keys too");
    assert!(error(JwtConfig::issuer("http://id.example.com").audience("a")).contains("loopback"));
    assert!(error(JwtConfig::jwks_url("ftp://id.example.com/keys").audience("a")).contains("loopback"));
    assert!(error(JwtConfig::hmac_secret("s").any_audience().algorithms(["RS256", "none"])).contains("none"));
    assert!(error(JwtConfig::hmac_secret("s").any_audience().algorithms(["XS1"])).contains("unknown"));
    assert!(error(JwtConfig::hmac_secret("").any_audience()).contains("empty"));
    assert!(error(JwtConfig::pem("not a key").any_audience()).contains("PEM"));
    assert!(error(JwtConfig::jwks("{}").any_audience()).contains("no key"));
    assert!(Jwt::new(JwtConfig::issuer("http://127.0.0.1:9").audience("a")).is_ok());
    assert!(Jwt::new(JwtConfig::jwks_url("https://id.example.com/keys").any_audience()).is_ok());
}

#[tokio::test]
async fn arbitrary_input_is_a_401_never_a_panic() {
    let jwt = hmac();
    let valid = sign(&claims());
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet: Vec<char> = "eyJhbGciOiJIUzI1NiJ9.-_=+/!\u{0}\u{e9}AZaz09{}\":,".chars().collect();
    for round in 0..3000 {
        let token: String = match round % 3 {
            // Random text over base64url, JSON and hostile characters.
            0 => (0..next() % 120).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect(),
            // The valid token with one byte changed.
            1 => {
                let mut bytes = valid.clone().into_bytes();
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] = alphabet[(next() % alphabet.len() as u64) as usize] as u8;
                String::from_utf8_lossy(&bytes).into_owned()
            }
            // A valid header over random claims and signature.
            _ => {
                let junk: String = (0..next() % 60).map(|_| alphabet[(next() % 20) as usize]).collect();
                format!("{}.{junk}.{junk}", valid.split('.').next().unwrap())
            }
        };
        if token == valid {
            continue;
        }
        let error = jwt.verify(&token).await.expect_err(&token);
        assert_eq!(error.status(), 401, "{token:?}: {error}");
    }
}
