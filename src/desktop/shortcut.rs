//! The desktop shortcut that opens the quick-capture window (`inkling shortcut
//! on|off|status`), as plain data: which desktop this is (from `XDG_CURRENT_DESKTOP`),
//! the key in each desktop's notation, and the exact commands that bind it in the
//! desktop's own keyboard settings (GNOME's custom keybindings through `gsettings`,
//! XFCE's through `xfconf-query`, KDE's through `kwriteconfig` and a desktop file).
//! Elsewhere the person is told the exact command to bind. `src/cli/shortcut.rs` runs
//! what these functions decide.

use std::path::Path;

/// The desktops whose keyboard settings `inkling shortcut on` can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Desktop {
    Gnome,
    Kde,
    Xfce,
    /// Any other (or none): the command to bind is printed.
    Other,
}

/// The desktop named by `XDG_CURRENT_DESKTOP`, a colon-separated list ("ubuntu:GNOME",
/// "KDE", "XFCE"), matched without regard to case. GNOME's derivatives that keep its
/// settings daemon (Ubuntu's, Pop's, Unity's) count as GNOME.
pub fn desktop_from(current_desktop: Option<&str>) -> Desktop {
    let names: Vec<String> = current_desktop
        .unwrap_or("")
        .split(':')
        .map(|name| name.trim().to_ascii_lowercase())
        .collect();
    let has = |wanted: &[&str]| names.iter().any(|name| wanted.contains(&name.as_str()));
    if has(&["gnome", "gnome-classic", "gnome-flashback", "unity", "pop"]) {
        Desktop::Gnome
    } else if has(&["kde"]) {
        Desktop::Kde
    } else if has(&["xfce", "xfce4"]) {
        Desktop::Xfce
    } else {
        Desktop::Other
    }
}

/// A key that cannot be bound as written.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeyError {
    #[error(
        "quick.shortcut {0:?}: unknown modifier <{1}> (use <Control>, <Alt>, <Shift> or <Super>)"
    )]
    UnknownModifier(String, String),
    #[error("quick.shortcut {0:?}: no key after the modifiers (write it like <Control><Alt>n)")]
    NoKey(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Modifier {
    Control,
    Alt,
    Shift,
    Super,
}

/// A shortcut: modifiers and one key, read from GNOME's notation (`<Control><Alt>n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    modifiers: Vec<Modifier>,
    key: String,
}

impl Key {
    /// Reads `<Control><Alt>n` (also `<Ctrl>`, `<Primary>`, `<Meta>` for Super).
    pub fn parse(written: &str) -> Result<Key, KeyError> {
        let mut rest = written.trim();
        let mut modifiers = Vec::new();
        while let Some(after) = rest.strip_prefix('<') {
            let (name, tail) = after
                .split_once('>')
                .ok_or_else(|| KeyError::NoKey(written.into()))?;
            let modifier = match name.to_ascii_lowercase().as_str() {
                "control" | "ctrl" | "primary" => Modifier::Control,
                "alt" => Modifier::Alt,
                "shift" => Modifier::Shift,
                "super" | "meta" => Modifier::Super,
                _ => return Err(KeyError::UnknownModifier(written.into(), name.into())),
            };
            if !modifiers.contains(&modifier) {
                modifiers.push(modifier);
            }
            rest = tail;
        }
        if rest.is_empty() {
            return Err(KeyError::NoKey(written.into()));
        }
        Ok(Key {
            modifiers,
            key: rest.to_string(),
        })
    }

    fn angled(&self, control: &str) -> String {
        let mut out = String::new();
        for modifier in &self.modifiers {
            out.push_str(match modifier {
                Modifier::Control => control,
                Modifier::Alt => "<Alt>",
                Modifier::Shift => "<Shift>",
                Modifier::Super => "<Super>",
            });
        }
        out.push_str(&self.key);
        out
    }

    /// GNOME's notation: `<Control><Alt>n`.
    pub fn gnome(&self) -> String {
        self.angled("<Control>")
    }

    /// XFCE's: `<Primary><Alt>n`.
    pub fn xfce(&self) -> String {
        self.angled("<Primary>")
    }

    /// The desktop portal's (the XDG shortcuts specification): `CTRL+ALT+n`.
    pub fn portal(&self) -> String {
        let mut parts: Vec<&str> = self
            .modifiers
            .iter()
            .map(|modifier| match modifier {
                Modifier::Control => "CTRL",
                Modifier::Alt => "ALT",
                Modifier::Shift => "SHIFT",
                Modifier::Super => "LOGO",
            })
            .collect();
        parts.push(&self.key);
        parts.join("+")
    }

    /// KDE's and a person's: `Ctrl+Alt+N`.
    pub fn plus(&self) -> String {
        let mut parts: Vec<String> = self
            .modifiers
            .iter()
            .map(|modifier| {
                match modifier {
                    Modifier::Control => "Ctrl",
                    Modifier::Alt => "Alt",
                    Modifier::Shift => "Shift",
                    Modifier::Super => "Meta",
                }
                .to_string()
            })
            .collect();
        let mut key = self.key.clone();
        if key.chars().count() == 1 {
            key = key.to_uppercase();
        }
        parts.push(key);
        parts.join("+")
    }
}

/// One command to run, program first.
pub type Argv = Vec<String>;

fn argv(words: &[&str]) -> Argv {
    words.iter().map(|word| word.to_string()).collect()
}

/// The command line the shortcut runs: this program, its `--config` if it was given
/// one, and `quick`; each word quoted for a shell-like parser (GNOME's and XFCE's
/// `g_shell_parse_argv`, KDE's `Exec=`): single quotes, a quote inside closed and
/// escaped.
pub fn command_line(exe: &Path, config: Option<&Path>) -> String {
    let quote = |word: &str| format!("'{}'", word.replace('\'', r"'\''"));
    let mut words = vec![quote(&exe.to_string_lossy())];
    if let Some(config) = config {
        words.push("--config".into());
        words.push(quote(&config.to_string_lossy()));
    }
    words.push("quick".into());
    words.join(" ")
}

/// What the binding is called in the desktop's settings.
pub const NAME: &str = "inkling quick note";

/// GNOME's list of custom keybindings, and the schema of each.
pub const GNOME_LIST_SCHEMA: &str = "org.gnome.settings-daemon.plugins.media-keys";
pub const GNOME_LIST_KEY: &str = "custom-keybindings";
pub const GNOME_BINDING_SCHEMA: &str =
    "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding";
/// inkling's own entry in that list (a name of its own, so `off` finds it again and
/// no other binding's number is taken).
pub const GNOME_PATH: &str =
    "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/inkling-quick/";

/// Reads GNOME's list of custom keybindings.
pub fn gnome_read_list() -> Argv {
    argv(&["gsettings", "get", GNOME_LIST_SCHEMA, GNOME_LIST_KEY])
}

/// Reads the key of inkling's binding.
pub fn gnome_read_binding() -> Argv {
    argv(&["gsettings", "get", &gnome_binding_schema(), "binding"])
}

fn gnome_binding_schema() -> String {
    format!("{GNOME_BINDING_SCHEMA}:{GNOME_PATH}")
}

/// A GVariant string: single quotes, `\` and `'` escaped.
fn gvariant_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', r"\\").replace('\'', r"\'"))
}

/// Reads what `gsettings get` prints for a list of strings: `@as []`, `['a', 'b']`.
/// The paths in it are plain (`/org/…/custom0/`); a quote or a backslash in one is kept
/// as the escape says.
pub fn parse_string_list(printed: &str) -> Option<Vec<String>> {
    let text = printed.trim();
    let text = text.strip_prefix("@as").unwrap_or(text).trim();
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    let mut items = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ',') {
            chars.next();
        }
        let Some(quote) = chars.next() else {
            return Some(items);
        };
        if quote != '\'' && quote != '"' {
            return None;
        }
        let mut item = String::new();
        loop {
            match chars.next()? {
                '\\' => item.push(chars.next()?),
                c if c == quote => break,
                c => item.push(c),
            }
        }
        items.push(item);
    }
}

fn format_string_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|item| gvariant_string(item)).collect();
    format!("[{}]", quoted.join(", "))
}

/// The commands that bind `key` to `command` on GNOME, given the list as it is: the
/// entry's name, command and key, then the list with inkling's entry added (once).
pub fn gnome_on(list: &[String], key: &Key, command: &str) -> Vec<Argv> {
    let schema = gnome_binding_schema();
    let mut with = list.to_vec();
    if !with.iter().any(|path| path == GNOME_PATH) {
        with.push(GNOME_PATH.to_string());
    }
    // Each value written as a GVariant string: gsettings reads `'a' b` as text but
    // `'a'` as the string a, so a value is never left to its guess.
    let set = |name: &str, value: &str| {
        argv(&["gsettings", "set", &schema, name, &gvariant_string(value)])
    };
    vec![
        set("name", NAME),
        set("command", command),
        set("binding", &key.gnome()),
        argv(&[
            "gsettings",
            "set",
            GNOME_LIST_SCHEMA,
            GNOME_LIST_KEY,
            &format_string_list(&with),
        ]),
    ]
}

/// The commands that take inkling's binding off GNOME: the list without it, then its
/// keys back to their defaults. Other bindings are left as they are.
pub fn gnome_off(list: &[String]) -> Vec<Argv> {
    let schema = gnome_binding_schema();
    let without: Vec<String> = list.iter().filter(|p| *p != GNOME_PATH).cloned().collect();
    let mut commands = Vec::new();
    if without.len() != list.len() {
        commands.push(argv(&[
            "gsettings",
            "set",
            GNOME_LIST_SCHEMA,
            GNOME_LIST_KEY,
            &format_string_list(&without),
        ]));
    }
    for key in ["name", "command", "binding"] {
        commands.push(argv(&["gsettings", "reset", &schema, key]));
    }
    commands
}

/// XFCE's channel of keyboard shortcuts, and where a custom command's key lives.
pub const XFCE_CHANNEL: &str = "xfce4-keyboard-shortcuts";

fn xfce_property(key: &Key) -> String {
    format!("/commands/custom/{}", key.xfce())
}

/// Binds `key` to `command` on XFCE (the property is made if it is not there).
pub fn xfce_on(key: &Key, command: &str) -> Vec<Argv> {
    vec![argv(&[
        "xfconf-query",
        "-c",
        XFCE_CHANNEL,
        "-p",
        &xfce_property(key),
        "--create",
        "-t",
        "string",
        "-s",
        command,
    ])]
}

/// Takes the binding of `key` off XFCE.
pub fn xfce_off(key: &Key) -> Vec<Argv> {
    vec![argv(&[
        "xfconf-query",
        "-c",
        XFCE_CHANNEL,
        "-p",
        &xfce_property(key),
        "-r",
    ])]
}

/// Reads what `key` runs on XFCE (fails when it is bound to nothing).
pub fn xfce_read(key: &Key) -> Argv {
    argv(&[
        "xfconf-query",
        "-c",
        XFCE_CHANNEL,
        "-p",
        &xfce_property(key),
    ])
}

/// The desktop file KDE's global shortcuts launch (`~/.local/share/applications/`).
pub const KDE_DESKTOP_FILE: &str = "inkling-quick.desktop";

/// That file: it runs `command`.
pub fn kde_desktop_entry(command: &str) -> String {
    format!(
        "[Desktop Entry]\nType=Application\nName=inkling quick note\nExec={command}\n\
         Icon=inkling\nNoDisplay=true\nX-KDE-GlobalAccel-CommandShortcut=true\n"
    )
}

/// Binds `key` to launching that file in KDE's global shortcuts (`kglobalshortcutsrc`,
/// `[services][inkling-quick.desktop] _launch=Ctrl+Alt+N`), with `kwriteconfig`
/// (`kwriteconfig6` on Plasma 6, `kwriteconfig5` before). `None` for `off`.
pub fn kde_write(kwriteconfig: &str, key: Option<&Key>) -> Argv {
    let mut command = argv(&[
        kwriteconfig,
        "--file",
        "kglobalshortcutsrc",
        "--group",
        "services",
        "--group",
        KDE_DESKTOP_FILE,
        "--key",
        "_launch",
    ]);
    match key {
        Some(key) => command.push(key.plus()),
        None => command.push("--delete".into()),
    }
    command
}

/// What to tell a person whose desktop inkling cannot set: the key and the exact
/// command to bind to it in their desktop's keyboard settings.
pub fn manual_instructions(key: &Key, command: &str) -> String {
    format!(
        "inkling cannot set this desktop's shortcuts; in its keyboard settings, bind {} to:\n  {command}",
        key.plus()
    )
}

#[cfg(test)]
mod tests;
