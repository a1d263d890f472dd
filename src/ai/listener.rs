//! Whose program may receive the notes: the decision, before anything is sent to a
//! model server on this machine, that the program listening on its port belongs to
//! someone trusted (docs/SECURITY.md, "A squatted model server port").
//!
//! While Ollama is stopped its port is free, and any user of the machine can listen
//! on it; inkling would send that program the text of every pending note. So, for a
//! provider URL on loopback, the listeners of its port are looked up by owner
//! (`crate::socket_owner`) and judged here ([`judge`]): the user's own uid, root and the
//! `ollama` system user (the standard Linux install runs Ollama as `ollama`; some run it
//! as root) are trusted, and so are the users named in `ai.trusted_listeners`. Anyone
//! else's listener is refused, and the provider's state says whose it is.
//!
//! A provider URL that is not loopback (another machine the user configured) is not
//! checked: the owner of a socket on another machine cannot be known from here.

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The loopback addresses and port a provider URL reaches; `None` from [`target_of`]
/// when the URL names another machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopbackTarget {
    pub port: u16,
    /// The addresses a connection to the URL's host can go to (`localhost`: both).
    pub addresses: Vec<IpAddr>,
}

/// Where `url` (`http://127.0.0.1:11434`, `http://localhost:8080/v1`) connects, if on
/// this machine: a loopback address, `localhost`, or the unspecified address (a
/// connection to 0.0.0.0 reaches this machine too); any other name is looked up as the
/// client will look it up (`127.1`, `localhost.localdomain`, `ip6-localhost`, the
/// machine's own name, which Debian maps to 127.0.1.1), and is this machine when an
/// address it has is.
pub fn target_of(url: &str) -> Option<LoopbackTarget> {
    target_with(url, |host, port| {
        use std::net::ToSocketAddrs;
        (host, port)
            .to_socket_addrs()
            .map(|found| found.map(|address| address.ip()).collect())
            .unwrap_or_default()
    })
}

/// [`target_of`] with the name look-up given (`resolve(host, port)`: its addresses).
pub fn target_with(
    url: &str,
    resolve: impl Fn(&str, u16) -> Vec<IpAddr>,
) -> Option<LoopbackTarget> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        let (host, after) = bracketed.split_once(']')?;
        (host, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(port) => port.parse().ok()?,
        None => default_port,
    };
    let host = host.trim_end_matches('.');
    let addresses = if host.eq_ignore_ascii_case("localhost") {
        vec![
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(Ipv6Addr::LOCALHOST),
        ]
    } else {
        let found = match host.parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => resolve(host, port),
        };
        let local: Vec<IpAddr> = found
            .into_iter()
            .map(|ip| match ip {
                IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
                v4 => v4,
            })
            .filter(|ip| ip.is_loopback() || ip.is_unspecified())
            .collect();
        if local.is_empty() {
            return None;
        }
        local
    };
    Some(LoopbackTarget { port, addresses })
}

impl LoopbackTarget {
    /// Whether a connection to this target can be taken by a listener bound to
    /// `listener` (its address as the socket tables give it, IPv4-mapped as IPv4):
    /// the same port, and the same address or a wildcard one. A connection to the
    /// unspecified address reaches any loopback or wildcard listener.
    pub fn reached_by(&self, listener: SocketAddr) -> bool {
        listener.port() == self.port
            && self.addresses.iter().any(|target| {
                let bound = listener.ip();
                bound.is_unspecified()
                    || bound == *target
                    || (target.is_unspecified() && bound.is_loopback())
            })
    }
}

/// The users whose listeners may receive notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenerTrust {
    uids: BTreeSet<u32>,
}

/// root's uid.
const ROOT: u32 = 0;

impl ListenerTrust {
    /// The user's own uid, root, the `ollama` user when the machine has one, and the
    /// configured others.
    pub fn new(own: u32, ollama: Option<u32>, configured: &[u32]) -> Self {
        let mut uids: BTreeSet<u32> = [own, ROOT].into();
        uids.extend(ollama);
        uids.extend(configured);
        ListenerTrust { uids }
    }

    pub fn trusts(&self, uid: u32) -> bool {
        self.uids.contains(&uid)
    }
}

/// Whether notes may go to what listens on the provider's port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every listener that can take the connection belongs to a trusted user.
    Allowed,
    /// Nothing listens there: the call would find nobody (the provider is down), so
    /// it may go ahead and fail as it does today.
    NoListener,
    /// A listener belongs to `uid`, who is not trusted: nothing is sent.
    Refused { uid: u32 },
}

/// The verdict on the listeners that can take a connection to the target, by owner
/// (`None`: no process holds the socket, which a listener always has; taken as
/// untrusted).
pub fn judge(owners: &[Option<u32>], trust: &ListenerTrust) -> Verdict {
    if owners.is_empty() {
        return Verdict::NoListener;
    }
    match owners
        .iter()
        .find(|owner| !owner.is_some_and(|uid| trust.trusts(uid)))
    {
        Some(owner) => Verdict::Refused {
            uid: owner.unwrap_or(u32::MAX),
        },
        None => Verdict::Allowed,
    }
}

#[cfg(test)]
mod tests;
