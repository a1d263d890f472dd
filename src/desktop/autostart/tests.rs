use super::*;

fn paths(dir: &Path) -> Paths {
    Paths {
        config_home: dir.join("config"),
        data_home: dir.join("data"),
    }
}

#[test]
fn the_desktop_entry_starts_this_binary_with_its_config_and_icon() {
    let entry = desktop_entry(
        Path::new("/opt/my apps/inkling"),
        Some(Path::new("/home/me/ink $1.toml")),
        Path::new("/icons/inkling.svg"),
    );
    assert!(
        entry.contains("Exec=\"/opt/my apps/inkling\" --config \"/home/me/ink \\$1.toml\" run\n"),
        "{entry}"
    );
    assert!(entry.contains("Icon=/icons/inkling.svg\n"));
    assert!(entry.contains(MARKER));
}

#[test]
fn the_systemd_unit_restarts_on_failure() {
    let unit = systemd_unit(Path::new("/usr/bin/inkling"), None);
    assert!(
        unit.contains("ExecStart=\"/usr/bin/inkling\" run\n"),
        "{unit}"
    );
    assert!(unit.contains("Restart=on-failure"));
    assert!(unit.contains("WantedBy=default.target"));
}

#[test]
fn on_is_idempotent_and_off_removes_only_what_on_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let paths = paths(dir.path());
    let exe = Path::new("/usr/bin/inkling");
    let first = turn_on(&paths, Kind::Xdg, exe, None, "<svg/>").unwrap();
    let text = fs::read_to_string(&first).unwrap();
    turn_on(&paths, Kind::Xdg, exe, None, "<svg/>").unwrap();
    assert_eq!(fs::read_to_string(&first).unwrap(), text);
    assert_eq!(fs::read_to_string(paths.icon()).unwrap(), "<svg/>");
    assert_eq!(status(&paths), vec![(Kind::Xdg, first.clone())]);

    assert_eq!(turn_off(&paths, Kind::Xdg).unwrap(), Some(first.clone()));
    assert!(!first.exists());
    assert_eq!(
        turn_off(&paths, Kind::Xdg).unwrap(),
        None,
        "off twice is fine"
    );

    // A file the user wrote is neither overwritten nor removed.
    fs::write(&first, "[Desktop Entry]\nExec=my-own-thing\n").unwrap();
    assert!(turn_on(&paths, Kind::Xdg, exe, None, "").is_err());
    assert!(turn_off(&paths, Kind::Xdg).is_err());
    assert!(first.exists());
}
