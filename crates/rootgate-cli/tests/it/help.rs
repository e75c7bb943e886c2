//! Every command of `rootgate` answers `--help` and `-h` with its help, and
//! does nothing else: the commands are read from the usage itself, so a
//! command added there is walked too. `rootgate connect --help` once took
//! `--help` for a server's name.

use std::process::Output;

use rootgate_test_support::app::*;

/// Runs `rootgate` with a home and settings of its own, empty, so that a
/// command that took a help flag for anything else would fail loudly
/// rather than find something.
fn rootgate(home: &std::path::Path, args: &[&str]) -> Output {
    std::process::Command::new(binary("rootgate"))
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_RUNTIME_DIR", home.join("run"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run rootgate")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The commands the usage names (`rootgate NAME ...` lines), in order.
fn commands(usage: &str) -> Vec<String> {
    usage
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("rootgate "))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|word| word.chars().all(|c| c.is_ascii_lowercase()))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_command_answers_help_and_h_with_its_own_help() {
    let home = tempfile::tempdir().expect("temp dir");
    let usage = rootgate(home.path(), &["--help"]);
    assert!(usage.status.success());
    let usage = text(&usage.stdout);
    let commands = commands(&usage);
    // The walk covers what the usage lists, at least these.
    for expected in [
        "connect", "apps", "import", "route", "unroute", "servers", "folders", "help",
    ] {
        assert!(
            commands.iter().any(|c| c == expected),
            "{expected} in {commands:?}"
        );
    }
    for command in &commands {
        let own = if command == "help" {
            usage.clone()
        } else {
            let own = rootgate(home.path(), &["help", command]);
            assert!(own.status.success(), "rootgate help {command}");
            text(&own.stdout)
        };
        assert!(
            command == "help" || own.starts_with(&format!("rootgate {command}")),
            "the help of {command} names it: {own}"
        );
        for flag in ["--help", "-h"] {
            let out = rootgate(home.path(), &[command, flag]);
            let said = format!(
                "rootgate {command} {flag}: status {:?}, stderr {}",
                out.status.code(),
                text(&out.stderr)
            );
            assert!(out.status.success(), "{said}");
            assert_eq!(text(&out.stdout), own, "{said}");
            assert!(out.stderr.is_empty(), "{said}");
        }
    }
}

#[test]
fn connect_takes_help_anywhere_before_a_double_dash() {
    let home = tempfile::tempdir().expect("temp dir");
    let help = text(&rootgate(home.path(), &["help", "connect"]).stdout);
    for args in [
        &["connect", "files", "--help"][..],
        &["connect", "-h", "files"],
        &["connect", "--help", "--", "files"],
    ] {
        let out = rootgate(home.path(), args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), help, "{args:?}");
    }
    // Two names, or none, are a wrong command line, said in words.
    for args in [&["connect"][..], &["connect", "a", "b"], &["connect", "--"]] {
        let out = rootgate(home.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let said = text(&out.stderr);
        assert!(
            said.contains("connect") && said.contains("name"),
            "{args:?}: {said}"
        );
    }
}

/// `rootgate search`, `add` and `install` run `rootgate-installer` beside
/// `rootgate` (so the bridge does not link the registry's client and the
/// bundle reader). A `rootgate` without it says what is missing and does
/// nothing else, rather than running another program of that name from
/// `PATH`; the installer run on its own points back at `rootgate`.
#[test]
fn the_installer_is_found_beside_rootgate_and_only_there() {
    let home = tempfile::tempdir().expect("temp dir");
    let alone = home.path().join("alone");
    std::fs::create_dir_all(&alone).expect("folder");
    std::fs::copy(binary("rootgate"), alone.join("rootgate")).expect("copy rootgate");
    // A program of the installer's name on PATH that would say so if run.
    let decoy = home.path().join("decoy");
    std::fs::create_dir_all(&decoy).expect("folder");
    let fake = decoy.join("rootgate-installer");
    std::fs::write(&fake, "#!/bin/sh\necho decoy ran\n").expect("decoy");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    for command in ["search", "add", "install"] {
        let out = std::process::Command::new(alone.join("rootgate"))
            .args([command, "something"])
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"))
            .env("PATH", &decoy)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run rootgate");
        let said = text(&out.stderr);
        assert!(!out.status.success(), "{command}: {said}");
        assert!(
            said.contains(&format!(
                "`rootgate {command}` needs rootgate-installer, which is not beside this program"
            )),
            "{command}: {said}"
        );
        assert!(!text(&out.stdout).contains("decoy ran"), "{command}");
    }
    // Beside it (as built, and as packaged), the installer answers.
    let out = rootgate(
        home.path(),
        &["install", "--dry-run", "/nonexistent/x.mcpb"],
    );
    let said = text(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(!said.contains("needs rootgate-installer"), "{said}");
    assert!(said.contains("/nonexistent/x.mcpb"), "{said}");
    // On its own, it says what it is for.
    let out = std::process::Command::new(binary("rootgate-installer"))
        .output()
        .expect("run the installer");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("run those instead"),
        "{}",
        text(&out.stderr)
    );
}
