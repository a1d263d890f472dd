//! The kernel's socket diagnostics (netlink `NETLINK_SOCK_DIAG`, `inet_diag`), what
//! `ss` uses: one socket looked up by its four addresses straight in the kernel's hash,
//! or the listening sockets alone.
//!
//! Why not `/proc/net/tcp` for these: reading it walks every bucket of the kernel's
//! connection hash (262,144 on the development machine), and every TIME_WAIT
//! connection in it: measured 1.4 ms with 3 sockets and 8 ms with 4,700 (mostly
//! TIME_WAIT, another test suite's), under load. Per accepted connection that is too
//! slow, and a user who churns connections could make it slower still. The exact
//! look-up here does not depend on how many sockets there are (docs/PERFORMANCE.md,
//! "Who is connecting"). `/proc/net/tcp` stays the fallback where netlink is refused.
//!
//! The messages are laid out by hand (linux/inet_diag.h, linux/netlink.h): a 16-byte
//! `nlmsghdr`, then `inet_diag_req_v2` (56 bytes) going out, `inet_diag_msg` (72 bytes)
//! coming back. Addresses and ports are in network order, the rest in the machine's.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::proc_net::{canonical, SocketEntry, TCP_LISTEN};

const NETLINK_SOCK_DIAG: libc::c_int = 4;
const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLM_F_REQUEST: u16 = 0x1;
const NLM_F_DUMP: u16 = 0x300;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const HEADER: usize = 16;
const REQUEST: usize = 56;
const MESSAGE: usize = 72;

/// The owner (uid) of the socket whose own address is `local` and whose other end is
/// `remote`, if this machine has it and a process holds it (inode not 0).
pub fn owner_of(local: SocketAddr, remote: SocketAddr) -> io::Result<Option<u32>> {
    let (local, remote) = (canonical(local), canonical(remote));
    let family = if local.is_ipv4() && remote.is_ipv4() {
        libc::AF_INET
    } else {
        libc::AF_INET6
    };
    let socket = open()?;
    let request = request(family, 0, NLM_F_REQUEST, Some((local, remote)));
    send(&socket, &request)?;
    let mut found = None;
    receive(&socket, |entry| found = Some(entry))?;
    Ok(found.and_then(|entry| entry.owner()))
}

/// Every listening TCP socket, IPv4 and IPv6.
pub fn listeners() -> io::Result<Vec<SocketEntry>> {
    let mut all = Vec::new();
    for family in [libc::AF_INET, libc::AF_INET6] {
        let socket = open()?;
        send(
            &socket,
            &request(family, 1 << TCP_LISTEN, NLM_F_REQUEST | NLM_F_DUMP, None),
        )?;
        receive(&socket, |entry| all.push(entry))?;
    }
    Ok(all)
}

fn open() -> io::Result<OwnedFd> {
    // SAFETY: plain socket(2); the descriptor is owned below.
    let fd = unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC,
            NETLINK_SOCK_DIAG,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a new descriptor nobody else owns.
    let socket = unsafe { OwnedFd::from_raw_fd(fd) };
    // The kernel answers at once; a second bounds a kernel that would not.
    let timeout = libc::timeval {
        tv_sec: 1,
        tv_usec: 0,
    };
    // SAFETY: `timeout` is a valid timeval for the call's duration.
    let set = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&timeout as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    if set < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(socket)
}

/// A `SOCK_DIAG_BY_FAMILY` request for TCP: one socket by its addresses, or a dump of
/// the sockets in `states`.
fn request(
    family: libc::c_int,
    states: u32,
    flags: u16,
    exact: Option<(SocketAddr, SocketAddr)>,
) -> Vec<u8> {
    let mut message = Vec::with_capacity(HEADER + REQUEST);
    message.extend_from_slice(&((HEADER + REQUEST) as u32).to_ne_bytes());
    message.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    message.extend_from_slice(&flags.to_ne_bytes());
    message.extend_from_slice(&1u32.to_ne_bytes()); // sequence
    message.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel's
    message.push(family as u8);
    message.push(libc::IPPROTO_TCP as u8);
    message.push(0); // no extensions
    message.push(0);
    let states = if exact.is_some() { !0 } else { states };
    message.extend_from_slice(&states.to_ne_bytes());
    let (source, destination) = exact.unwrap_or((
        SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0),
        SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0),
    ));
    message.extend_from_slice(&source.port().to_be_bytes());
    message.extend_from_slice(&destination.port().to_be_bytes());
    message.extend_from_slice(&address_bytes(family, source.ip()));
    message.extend_from_slice(&address_bytes(family, destination.ip()));
    message.extend_from_slice(&0u32.to_ne_bytes()); // any interface
    message.extend_from_slice(&(!0u32).to_ne_bytes()); // INET_DIAG_NOCOOKIE
    message.extend_from_slice(&(!0u32).to_ne_bytes());
    message
}

/// 16 bytes: an IPv4 address in the first four for AF_INET, IPv4-mapped for AF_INET6.
fn address_bytes(family: libc::c_int, ip: IpAddr) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    match (family, ip) {
        (libc::AF_INET, IpAddr::V4(v4)) => bytes[..4].copy_from_slice(&v4.octets()),
        (_, IpAddr::V4(v4)) => bytes = v4.to_ipv6_mapped().octets(),
        (_, IpAddr::V6(v6)) => bytes = v6.octets(),
    }
    bytes
}

fn send(socket: &OwnedFd, message: &[u8]) -> io::Result<()> {
    // SAFETY: a zeroed sockaddr_nl is valid; family set below (pid 0: the kernel).
    let mut kernel: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
    kernel.nl_family = libc::AF_NETLINK as libc::sa_family_t;
    // SAFETY: `message` and `kernel` are valid for the call.
    let sent = unsafe {
        libc::sendto(
            socket.as_raw_fd(),
            message.as_ptr().cast(),
            message.len(),
            0,
            (&kernel as *const libc::sockaddr_nl).cast(),
            std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
        )
    };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Reads answers until the end of a dump, an error message (ENOENT for a socket that
/// is not there: no entry), or the single answer to an exact look-up.
fn receive(socket: &OwnedFd, mut each: impl FnMut(SocketEntry)) -> io::Result<()> {
    let mut buffer = vec![0u8; 32 * 1024];
    loop {
        // SAFETY: `buffer` is valid for its length.
        let read = unsafe {
            libc::recv(
                socket.as_raw_fd(),
                buffer.as_mut_ptr().cast(),
                buffer.len(),
                0,
            )
        };
        if read < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut rest = &buffer[..read as usize];
        let mut dumping = false;
        while rest.len() >= HEADER {
            let (Some(length), Some(kind), Some(flags)) = (
                bytes_at(rest, 0).map(u32::from_ne_bytes),
                bytes_at(rest, 4).map(u16::from_ne_bytes),
                bytes_at(rest, 6).map(u16::from_ne_bytes),
            ) else {
                return Err(io::Error::other("a netlink answer cut short"));
            };
            let length = length as usize;
            if length < HEADER || length > rest.len() {
                return Err(io::Error::other("a netlink answer cut short"));
            }
            let body = &rest[HEADER..length];
            match kind {
                NLMSG_DONE => return Ok(()),
                NLMSG_ERROR => {
                    let code = bytes_at(body, 0).map_or(0, i32::from_ne_bytes);
                    return match -code {
                        0 | libc::ENOENT => Ok(()),
                        errno => Err(io::Error::from_raw_os_error(errno)),
                    };
                }
                SOCK_DIAG_BY_FAMILY => {
                    if let Some(entry) = parse_message(body) {
                        each(entry);
                    }
                    dumping |= flags & 0x2 != 0; // NLM_F_MULTI: more to come
                }
                _ => {}
            }
            // Messages are aligned to 4 bytes.
            let next = (length + 3) & !3;
            rest = rest.get(next..).unwrap_or(&[]);
        }
        if !dumping {
            return Ok(());
        }
    }
}

/// `N` bytes of `bytes` from `at`, if it has them.
fn bytes_at<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// One `inet_diag_msg`; `None` when it is shorter than one.
fn parse_message(body: &[u8]) -> Option<SocketEntry> {
    if body.len() < MESSAGE {
        return None;
    }
    let word = |at: usize| bytes_at(body, at).map(u32::from_ne_bytes);
    let port = |at: usize| bytes_at(body, at).map(u16::from_be_bytes);
    let ip = |at: usize| -> Option<IpAddr> {
        if *body.first()? as libc::c_int == libc::AF_INET {
            bytes_at::<4>(body, at).map(|octets| IpAddr::V4(Ipv4Addr::from(octets)))
        } else {
            bytes_at::<16>(body, at).map(|octets| IpAddr::V6(Ipv6Addr::from(octets)))
        }
    };
    Some(SocketEntry {
        local: canonical(SocketAddr::new(ip(8)?, port(4)?)),
        remote: canonical(SocketAddr::new(ip(24)?, port(6)?)),
        state: *body.get(1)?,
        uid: word(64)?,
        inode: u64::from(word(68)?),
    })
}

#[cfg(test)]
mod tests;
