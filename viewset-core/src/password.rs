//! Password hashing with Argon2id (the [`argon2`] crate of RustCrypto): a helper the application calls from its
//! own sign-up and sign-in code. It installs no route and no middleware (the framework has no login of its own).
//!
//! Parameters ([`PARAMETERS`]): Argon2id, version 0x13, 19 MiB of memory (`m = 19456` KiB), 2 passes (`t = 2`),
//! 1 lane (`p = 1`), a 16-byte random salt from the operating system and a 32-byte output: OWASP's first
//! recommended configuration for Argon2id. The result is a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`)
//! that carries its own parameters, so [`verify_password`] keeps accepting hashes made with other parameters
//! (stronger ones later, say), and [`needs_rehash`] tells when a stored hash should be replaced at the next sign-in.
//!
//! ```
//! use viewset_core::password::{hash_password, verify_password};
//!
//! let stored = hash_password("correct horse battery staple").expect("hashing works");
//! assert!(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
//! assert!(verify_password("correct horse battery staple", &stored));
//! assert!(!verify_password("Correct horse battery staple", &stored));
//! assert!(!verify_password("anything", "not a PHC string"));
//! ```

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};

/// The parameters [`hash_password`] uses, as `(memory KiB, passes, lanes, output bytes)`: `(19456, 2, 1, 32)`.
pub const PARAMETERS: (u32, u32, u32, usize) = (19 * 1024, 2, 1, 32);

/// Why a password could not be hashed (the operating system gave no random salt, or the password is longer than
/// Argon2 accepts: 4 GiB).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordError(pub String);

impl std::fmt::Display for PasswordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the password could not be hashed: {}", self.0)
    }
}

impl std::error::Error for PasswordError {}

fn hasher() -> Argon2<'static> {
    let (m, t, p, len) = PARAMETERS;
    let params = Params::new(m, t, p, Some(len)).expect("the documented parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes `password` with Argon2id and a fresh random salt ([`PARAMETERS`]); the PHC string to store. Two calls
/// with the same password give different strings (different salts); both verify. Takes tens of milliseconds by
/// design: call it from `tokio::task::spawn_blocking` in a busy server.
///
/// ```
/// let a = viewset_core::password::hash_password("s3cret").unwrap();
/// let b = viewset_core::password::hash_password("s3cret").unwrap();
/// assert_ne!(a, b);
/// ```
pub fn hash_password(password: &str) -> Result<String, PasswordError> {
    hasher().hash_password(password.as_bytes()).map(|hash| hash.to_string()).map_err(|e| PasswordError(e.to_string()))
}

/// Whether `password` matches the PHC string `stored` (made by [`hash_password`] or any Argon2 PHC string; the
/// parameters are read from it). A malformed `stored` is `false`. The comparison is constant-time.
///
/// ```
/// let stored = viewset_core::password::hash_password("s3cret").unwrap();
/// assert!(viewset_core::password::verify_password("s3cret", &stored));
/// assert!(!viewset_core::password::verify_password("s3cret ", &stored));
/// ```
pub fn verify_password(password: &str, stored: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(stored) else { return false };
    Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok()
}

/// Whether `stored` was made with other parameters than [`PARAMETERS`] (or is not an Argon2id PHC string): hash the
/// password again after the next successful [`verify_password`].
///
/// ```
/// let stored = viewset_core::password::hash_password("s3cret").unwrap();
/// assert!(!viewset_core::password::needs_rehash(&stored));
/// assert!(viewset_core::password::needs_rehash("$argon2i$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"));
/// ```
pub fn needs_rehash(stored: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(stored) else { return true };
    let (m, t, p, len) = PARAMETERS;
    let expected = format!("m={m},t={t},p={p}");
    parsed.algorithm.as_str() != "argon2id"
        || parsed.version != Some(0x13)
        || parsed.params.to_string() != expected
        || parsed.hash.is_none_or(|h| h.len() != len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_verify_and_wrong_passwords() {
        let stored = hash_password("pässword ✓").unwrap();
        assert!(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{stored}");
        assert!(verify_password("pässword ✓", &stored));
        for wrong in ["", "password ✓", "pässword", "pässword ✓ "] {
            assert!(!verify_password(wrong, &stored), "{wrong:?}");
        }
        assert!(!needs_rehash(&stored));
    }

    #[test]
    fn tampered_and_malformed_hashes_do_not_verify() {
        let stored = hash_password("s3cret").unwrap();
        // Flip one character of the hash part.
        let (head, hash) = stored.rsplit_once('$').unwrap();
        let mut chars: Vec<char> = hash.chars().collect();
        chars[3] = if chars[3] == 'A' { 'B' } else { 'A' };
        let tampered = format!("{head}${}", chars.into_iter().collect::<String>());
        assert!(!verify_password("s3cret", &tampered));
        // Weaker parameters in the string (same salt and hash) do not verify either: the hash covers them.
        let weaker = stored.replace("t=2", "t=1");
        assert!(!verify_password("s3cret", &weaker));
        for malformed in ["", "$argon2id$", "plain text", "$argon2id$v=19$m=19456,t=2,p=1$$"] {
            assert!(!verify_password("s3cret", malformed), "{malformed:?}");
            assert!(needs_rehash(malformed));
        }
    }

    #[test]
    fn other_parameters_verify_and_ask_for_a_rehash() {
        let params = Params::new(8 * 1024, 1, 1, Some(32)).unwrap();
        let old =
            Argon2::new(Algorithm::Argon2id, Version::V0x13, params).hash_password(b"s3cret").unwrap().to_string();
        assert!(verify_password("s3cret", &old));
        assert!(needs_rehash(&old));
    }
}
