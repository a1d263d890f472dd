//! How the CLI knows that what answers on the port is this install's inkling before
//! it sends the token there.
//!
//! With inkling stopped, any other local program (another user's included) could
//! listen on `127.0.0.1:7373`, receive `Authorization: Bearer <token>` and the note
//! text, and answer whatever it liked. Now the CLI first sends a fresh random nonce to
//! `GET /identity?nonce=…`, which needs no credential, and the service answers with
//! HMAC-SHA256, keyed by the token, of the port it listens on and the nonce. Only a
//! holder of the token can answer; a fresh nonce each time means an old answer is no
//! use; and the port in the proof means a program on this port cannot pass the nonce to
//! a real inkling on another port and relay its answer. Only then is the token sent.

use hmac::{KeyInit, Mac};
use sha2::Sha256;

/// What the proof is computed over: a fixed label, the port, the nonce.
fn message(port: u16, nonce: &str) -> String {
    format!("inkling identity v1\n{port}\n{nonce}")
}

fn mac(key: &[u8]) -> hmac::Hmac<Sha256> {
    // HMAC takes a key of any length: this cannot fail.
    <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"))
}

/// HMAC-SHA256 of `message` under `key`: the one signature of every proof (the CLI's
/// here, the page's in `page_proof`).
pub fn sign(key: &[u8], message: &str) -> Vec<u8> {
    let mut mac = mac(key);
    mac.update(message.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// Whether `answer` (hex) is `message`'s signature under `key`, compared in constant
/// time.
pub fn verify(key: &[u8], message: &str, answer: &str) -> bool {
    let Some(bytes) = unhex(answer) else {
        return false;
    };
    let mut mac = mac(key);
    mac.update(message.as_bytes());
    mac.verify_slice(&bytes).is_ok()
}

/// The service's answer to `nonce` on `port`, as hex.
pub fn proof(token: &str, port: u16, nonce: &str) -> String {
    hex(&sign(token.as_bytes(), &message(port, nonce)))
}

/// Whether `answer` proves the token for `nonce` on `port` (compared in constant time).
pub fn is_genuine(token: &str, port: u16, nonce: &str, answer: &str) -> bool {
    verify(token.as_bytes(), &message(port, nonce), answer)
}

/// A fresh nonce: 32 random bytes as hex.
pub fn new_nonce() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness for a nonce: {e}"))?;
    Ok(hex(&bytes))
}

/// A nonce the service will answer: 32 to 128 hex digits.
pub fn is_valid_nonce(nonce: &str) -> bool {
    (32..=128).contains(&nonce.len()) && nonce.bytes().all(|b| b.is_ascii_hexdigit())
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests;
