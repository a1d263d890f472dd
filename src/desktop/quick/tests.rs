use super::*;

const URL: &str = "http://127.0.0.1:7373/quick?code=abc";

#[test]
fn the_first_chromium_family_browser_on_path_opens_an_app_window() {
    let command = window_command(URL, "", |name| name == "google-chrome", |_| false);
    assert_eq!(
        command,
        [
            "google-chrome",
            "--app=http://127.0.0.1:7373/quick?code=abc",
            "--window-size=520,220"
        ]
    );
    let both = window_command(
        URL,
        "",
        |name| name == "chromium" || name == "brave-browser",
        |_| false,
    );
    assert_eq!(both[0], "chromium");
}

#[test]
fn a_configured_browser_wins_with_its_own_arguments() {
    let command = window_command(
        URL,
        "  flatpak run org.chromium.Chromium ",
        |_| true,
        |_| true,
    );
    assert_eq!(
        command,
        [
            "flatpak",
            "run",
            "org.chromium.Chromium",
            "--app=http://127.0.0.1:7373/quick?code=abc",
            "--window-size=520,220"
        ]
    );
}

#[test]
fn without_an_app_browser_the_default_browser_gets_a_tab() {
    let command = window_command(URL, "", |_| false, |_| true);
    assert_eq!(command, [default_opener(), URL]);
}

#[test]
fn a_running_browser_behind_a_launcher_script_is_handed_the_address_by_its_program() {
    let running = window_command(URL, "", |name| name == "chromium", |l| l.name == "chromium");
    assert_eq!(running[0], "/usr/lib/chromium/chromium");
    assert_eq!(running[1], "--app=http://127.0.0.1:7373/quick?code=abc");
    // Not running: the script starts it, with the distribution's flags.
    let cold = window_command(URL, "", |name| name == "chromium", |_| false);
    assert_eq!(cold[0], "chromium");
    // A browser without a known launcher is started by its name.
    let brave = window_command(URL, "", |name| name == "brave-browser", |_| true);
    assert_eq!(brave[0], "brave-browser");
    // A configured browser is started as written, running or not.
    let configured = window_command(URL, "chromium --incognito", |_| true, |_| true);
    assert_eq!(configured[..2], ["chromium", "--incognito"]);
}

#[test]
fn a_singleton_lock_counts_only_for_a_live_process_of_this_machine() {
    let alive = |pid: u32| pid == 4242;
    assert!(lock_names_a_live_process("desk-4242", "desk", alive));
    assert!(lock_names_a_live_process("my-desk-4242", "my-desk", alive));
    assert!(
        !lock_names_a_live_process("desk-4243", "desk", alive),
        "gone"
    );
    assert!(
        !lock_names_a_live_process("other-4242", "desk", alive),
        "another machine's (a shared home)"
    );
    assert!(!lock_names_a_live_process("desk", "desk", alive));
    assert!(!lock_names_a_live_process("desk-x", "desk", alive));
}
