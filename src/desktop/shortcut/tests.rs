//! The shortcut's decisions: the desktop, the key's notations, the exact commands.

use super::*;

#[test]
fn the_desktop_comes_from_xdg_current_desktop_in_any_case_and_any_place_in_the_list() {
    assert_eq!(desktop_from(Some("GNOME")), Desktop::Gnome);
    assert_eq!(desktop_from(Some("ubuntu:GNOME")), Desktop::Gnome);
    assert_eq!(desktop_from(Some("pop:GNOME")), Desktop::Gnome);
    assert_eq!(desktop_from(Some("Unity")), Desktop::Gnome);
    assert_eq!(desktop_from(Some("KDE")), Desktop::Kde);
    assert_eq!(desktop_from(Some("XFCE")), Desktop::Xfce);
    assert_eq!(desktop_from(Some("xfce")), Desktop::Xfce);
    assert_eq!(desktop_from(Some("X-Cinnamon")), Desktop::Other);
    assert_eq!(desktop_from(Some("sway")), Desktop::Other);
    assert_eq!(desktop_from(Some("")), Desktop::Other);
    assert_eq!(desktop_from(None), Desktop::Other);
}

#[test]
fn the_key_is_read_in_gnomes_notation_and_written_in_each_desktops() {
    let key = Key::parse("<Control><Alt>n").unwrap();
    assert_eq!(key.gnome(), "<Control><Alt>n");
    assert_eq!(key.xfce(), "<Primary><Alt>n");
    assert_eq!(key.plus(), "Ctrl+Alt+N");
    let other = Key::parse("<Primary><Shift><Super>space").unwrap();
    assert_eq!(other.gnome(), "<Control><Shift><Super>space");
    assert_eq!(other.plus(), "Ctrl+Shift+Meta+space");
    assert_eq!(
        Key::parse("<Hyper>n"),
        Err(KeyError::UnknownModifier("<Hyper>n".into(), "Hyper".into()))
    );
    assert_eq!(
        Key::parse("<Control><Alt>"),
        Err(KeyError::NoKey("<Control><Alt>".into()))
    );
}

#[test]
fn the_command_line_quotes_each_word_for_a_shell_like_parser() {
    let plain = command_line(Path::new("/home/me/.cargo/bin/inkling"), None);
    assert_eq!(plain, "'/home/me/.cargo/bin/inkling' quick");
    let odd = command_line(
        Path::new("/opt/my apps/inkling"),
        Some(Path::new("/home/me/it's.toml")),
    );
    assert_eq!(
        odd,
        r"'/opt/my apps/inkling' --config '/home/me/it'\''s.toml' quick"
    );
}

#[test]
fn gsettings_lists_are_read_empty_or_full() {
    assert_eq!(parse_string_list("@as []\n"), Some(vec![]));
    assert_eq!(
        parse_string_list("['/a/custom0/', '/a/custom1/']\n"),
        Some(vec!["/a/custom0/".into(), "/a/custom1/".into()])
    );
    assert_eq!(
        parse_string_list(r"['it\'s']"),
        Some(vec!["it's".to_string()])
    );
    assert_eq!(parse_string_list("No such schema"), None);
}

const COMMAND: &str = "'/usr/bin/inkling' quick";

#[test]
fn gnome_on_sets_the_entry_then_adds_it_to_the_list_once() {
    let key = Key::parse("<Control><Alt>n").unwrap();
    let others = vec![
        "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/custom0/".to_string(),
    ];
    let commands = gnome_on(&others, &key, COMMAND);
    let schema = format!("{GNOME_BINDING_SCHEMA}:{GNOME_PATH}");
    assert_eq!(
        commands,
        vec![
            argv(&["gsettings", "set", &schema, "name", "'inkling quick note'"]),
            argv(&["gsettings", "set", &schema, "command", r"'\'/usr/bin/inkling\' quick'"]),
            argv(&["gsettings", "set", &schema, "binding", "'<Control><Alt>n'"]),
            argv(&[
                "gsettings",
                "set",
                "org.gnome.settings-daemon.plugins.media-keys",
                "custom-keybindings",
                "['/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/custom0/', \
                 '/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/inkling-quick/']",
            ]),
        ]
    );
    // On twice: inkling's entry is in the list once.
    let mut already = others.clone();
    already.push(GNOME_PATH.to_string());
    assert_eq!(gnome_on(&already, &key, COMMAND)[3], commands[3]);
}

#[test]
fn gnome_off_takes_only_inklings_entry_out() {
    let other = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/custom0/";
    let list = vec![other.to_string(), GNOME_PATH.to_string()];
    let schema = format!("{GNOME_BINDING_SCHEMA}:{GNOME_PATH}");
    assert_eq!(
        gnome_off(&list),
        vec![
            argv(&[
                "gsettings",
                "set",
                GNOME_LIST_SCHEMA,
                GNOME_LIST_KEY,
                &format!("['{other}']")
            ]),
            argv(&["gsettings", "reset", &schema, "name"]),
            argv(&["gsettings", "reset", &schema, "command"]),
            argv(&["gsettings", "reset", &schema, "binding"]),
        ]
    );
    assert_eq!(
        gnome_off(&[other.to_string()]).len(),
        3,
        "the list is left alone"
    );
}

#[test]
fn xfce_binds_the_command_under_its_own_notation_of_the_key() {
    let key = Key::parse("<Control><Alt>n").unwrap();
    assert_eq!(
        xfce_on(&key, COMMAND),
        vec![argv(&[
            "xfconf-query",
            "-c",
            "xfce4-keyboard-shortcuts",
            "-p",
            "/commands/custom/<Primary><Alt>n",
            "--create",
            "-t",
            "string",
            "-s",
            COMMAND,
        ])]
    );
    assert_eq!(
        xfce_off(&key),
        vec![argv(&[
            "xfconf-query",
            "-c",
            "xfce4-keyboard-shortcuts",
            "-p",
            "/commands/custom/<Primary><Alt>n",
            "-r"
        ])]
    );
}

#[test]
fn kde_launches_inklings_desktop_file_on_the_key() {
    let key = Key::parse("<Control><Alt>n").unwrap();
    assert_eq!(
        kde_write("kwriteconfig6", Some(&key)),
        argv(&[
            "kwriteconfig6",
            "--file",
            "kglobalshortcutsrc",
            "--group",
            "services",
            "--group",
            "inkling-quick.desktop",
            "--key",
            "_launch",
            "Ctrl+Alt+N"
        ])
    );
    assert_eq!(kde_write("kwriteconfig5", None).last().unwrap(), "--delete");
    assert!(kde_desktop_entry(COMMAND).contains("\nExec='/usr/bin/inkling' quick\n"));
}

#[test]
fn elsewhere_the_exact_command_is_said() {
    let key = Key::parse("<Control><Alt>n").unwrap();
    assert_eq!(
        manual_instructions(&key, COMMAND),
        "inkling cannot set this desktop's shortcuts; in its keyboard settings, bind Ctrl+Alt+N to:\n  '/usr/bin/inkling' quick"
    );
}
