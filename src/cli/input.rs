//! What a command reads from the person rather than the service: a note on standard
//! input (`capture -`, `edit --body -`), and a body edited in their editor. (The
//! clipboard, for `capture --clipboard`, is `clipboard.rs`.)

use std::io::Read;

use crate::client::ClientError;

/// `body` edited in the user's editor ($VISUAL, else $EDITOR, else `vi`, run by the
/// shell as git runs it, so `code --wait` works), through a file only the user can
/// read. `None` when it comes back unchanged.
pub fn edit_in_editor(body: &str) -> Result<Option<String>, ClientError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string());
    let path = std::env::temp_dir().join(format!("inkling-note-{}.md", uuid::Uuid::now_v7()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut file| file.write_all(body.as_bytes()));
    if let Err(e) = written {
        return Err(anyhow::anyhow!("cannot write {}: {e}", path.display()).into());
    }
    let ran = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg("sh")
        .arg(&path)
        .status();
    let edited = std::fs::read(&path);
    let _ = std::fs::remove_file(&path);
    match ran {
        Ok(status) if status.success() => {}
        Ok(status) => {
            return Err(ClientError::Api(format!(
                "the editor ({editor}) ended with {status}; the note was not changed"
            )))
        }
        Err(e) => {
            return Err(anyhow::anyhow!(
                "cannot run the editor ({editor}): {e}; set $VISUAL or $EDITOR, or use --body"
            )
            .into())
        }
    }
    let edited = edited.map_err(|e| anyhow::anyhow!("cannot read the edited note: {e}"))?;
    let edited = String::from_utf8(edited)
        .map_err(|_| ClientError::Api("the edited note is not UTF-8 text".into()))?;
    Ok((edited != body).then_some(edited))
}

/// A note from `input` (`capture -`), read up to `limit` bytes and no further: a pipe
/// from a huge file or `/dev/zero` is refused at once instead of filling the memory.
pub fn read_note(input: impl Read, limit: usize) -> Result<String, ClientError> {
    let mut bytes = Vec::new();
    input
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read standard input: {e}"))?;
    if bytes.len() > limit {
        return Err(too_large(limit));
    }
    String::from_utf8(bytes).map_err(|_| ClientError::Api("the note is not UTF-8 text".into()))
}

/// A note over the service's limit, refused before it is sent.
pub fn too_large(limit: usize) -> ClientError {
    let size = if limit.is_multiple_of(1024) {
        format!("{} KiB", limit / 1024)
    } else {
        format!("{limit} bytes")
    };
    ClientError::Api(format!(
        "the note is larger than {size} (http.max_body_bytes); shorten it"
    ))
}

#[cfg(test)]
mod tests;
