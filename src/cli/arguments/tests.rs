use super::*;

#[test]
fn global_options_work_before_and_after_the_subcommand() {
    let cli = Cli::try_parse_from(["inkling", "--config", "x.toml", "status", "--json"]).unwrap();
    assert_eq!(cli.config, Some(PathBuf::from("x.toml")));
    assert!(cli.json);
    assert!(matches!(
        cli.command,
        Some(Command::Status { verbose: false })
    ));
    assert!(Cli::try_parse_from(["inkling"]).unwrap().command.is_none());
}
