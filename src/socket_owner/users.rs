//! The machine's users by uid and by name, as the system's user database says (NSS:
//! `/etc/passwd`, and LDAP or systemd's dynamic users where configured).

use std::ffi::{CStr, CString};

/// The uid this process runs as (its effective uid: the one its sockets belong to).
pub fn own_uid() -> u32 {
    // SAFETY: geteuid cannot fail and touches no memory of ours.
    unsafe { libc::geteuid() }
}

/// The name of user `uid`; `None` when the user database has none.
pub fn user_name(uid: u32) -> Option<String> {
    lookup(|entry, buffer, result| {
        // SAFETY: every pointer is to memory we own, `buffer` with its true length.
        unsafe { libc::getpwuid_r(uid, entry, buffer.as_mut_ptr(), buffer.len(), result) }
    })
    .map(|(name, _)| name)
}

/// The uid of the user called `name`; `None` when there is no such user.
pub fn uid_of(name: &str) -> Option<u32> {
    let name = CString::new(name).ok()?;
    lookup(|entry, buffer, result| {
        // SAFETY: as above; `name` is a NUL-terminated string alive for the call.
        unsafe {
            libc::getpwnam_r(
                name.as_ptr(),
                entry,
                buffer.as_mut_ptr(),
                buffer.len(),
                result,
            )
        }
    })
    .map(|(_, uid)| uid)
}

/// Runs a `getpw*_r` call with a buffer that grows while the call says ERANGE; the
/// entry's name and uid, or `None` when there is no such user.
fn lookup(
    call: impl Fn(&mut libc::passwd, &mut Vec<libc::c_char>, &mut *mut libc::passwd) -> libc::c_int,
) -> Option<(String, u32)> {
    let mut size = 1024;
    loop {
        let mut buffer: Vec<libc::c_char> = vec![0; size];
        // SAFETY: a zeroed passwd is a valid value of the plain C struct (null pointers).
        let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        match call(&mut entry, &mut buffer, &mut result) {
            0 if result.is_null() => return None,
            0 => {
                // SAFETY: on success `pw_name` points into `buffer`, NUL-terminated.
                let name = unsafe { CStr::from_ptr(entry.pw_name) };
                return Some((name.to_string_lossy().into_owned(), entry.pw_uid));
            }
            libc::ERANGE if size < 1 << 20 => size *= 4,
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_found_both_ways_and_a_missing_user_is_none() {
        assert_eq!(user_name(0).as_deref(), Some("root"));
        assert_eq!(uid_of("root"), Some(0));
        assert_eq!(uid_of("no-such-user-of-inkling"), None);
        assert_eq!(uid_of("bad\0name"), None);
        assert_eq!(
            user_name(own_uid()).map(|n| uid_of(&n)),
            Some(Some(own_uid()))
        );
    }
}
