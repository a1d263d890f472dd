//! Who may connect: only programs of the user the service runs as (docs/SECURITY.md,
//! "Other users of the machine").
//!
//! The one-time code that opens the page passes through `xdg-open`'s and the browser's
//! arguments, which every user can read in `/proc`; another user who read it raced the
//! browser to `POST /session`, and won. So every connection is judged at its accept,
//! before a byte of it is read: the client end of a loopback connection is a socket of
//! this machine, whose owner the kernel tells (`crate::socket_owner`: netlink socket
//! diagnostics, `/proc/net/tcp{,6}` where refused),
//! and a connection whose owner is not this user is closed at once. The user's browser
//! runs as the user, and passes.
//!
//! Cost: one look-up per connection (not per request: a browser and the page keep
//! theirs open), straight in the kernel's hash by the connection's addresses
//! (docs/PERFORMANCE.md, "Who is connecting").

use std::io;
use std::net::SocketAddr;

/// What is decided about a new connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerVerdict {
    /// The user's own program, or a client on another machine (only with
    /// `http.allow_non_loopback`; its defence is the token).
    Allowed,
    /// Another user's program (`Some(uid)`), or a loopback client whose socket no
    /// process of this machine holds, or one that could not be looked up: closed.
    Refused { uid: Option<u32> },
}

/// The verdict on a connection from `peer`, whose client socket is owned by `owner` as
/// the socket tables say (`Ok(None)`: no such socket of this machine).
pub fn judge(owner: &io::Result<Option<u32>>, peer: SocketAddr, own_uid: u32) -> PeerVerdict {
    match owner {
        Ok(Some(uid)) if *uid == own_uid => PeerVerdict::Allowed,
        Ok(Some(uid)) => PeerVerdict::Refused { uid: Some(*uid) },
        // Not a socket of this machine: another machine's client, unless it comes
        // from loopback, where every client is one of ours (then it is already gone).
        Ok(None) if !crate::socket_owner::canonical(peer).ip().is_loopback() => {
            PeerVerdict::Allowed
        }
        Ok(None) | Err(_) => PeerVerdict::Refused { uid: None },
    }
}

/// Looks up and judges a connection accepted at `local` from `peer`.
pub fn check(peer: SocketAddr, local: SocketAddr, own_uid: u32) -> PeerVerdict {
    let owner = crate::socket_owner::client_owner(peer, local);
    let verdict = judge(&owner, peer, own_uid);
    if let (PeerVerdict::Refused { uid }, owner) = (verdict, &owner) {
        match owner {
            Err(e) => {
                tracing::warn!(%peer, error = %e, "cannot tell who connects; connection closed")
            }
            // Said at info by the accept loop, a few times only: a flood must not
            // fill the log.
            Ok(_) => {
                tracing::debug!(target: "inkling::http", %peer, ?uid, "a connection from another user's program closed")
            }
        }
    }
    verdict
}

#[cfg(test)]
mod tests;
