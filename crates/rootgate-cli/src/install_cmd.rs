//! `rootgate install FILE.mcpb`: an MCP bundle shown, then installed as a
//! Rootgate server, from a terminal.
//!
//! It prints what the bundle is before anything is unpacked (name,
//! author, version, what it runs, the tools it declares, what it needs,
//! whether it is signed), and then installs it through
//! `rootgate_core::sources::bundle`, the same code the window uses. As
//! `rootgate import` does, it takes the person's answers with `--set
//! KEY=VALUE` (`KEY=-` reads standard input), exits with 3 when one is
//! missing, never approves the command or shares a folder, and says what
//! waits for the person. With the window open, the window owns the
//! settings: the file is handed to it and the window shows the bundle.
//!
//! What is not here: reading or checking the bundle (the sources crate
//! does), and any text a bundle wrote printed as it is: every word of the
//! manifest goes through `written_out`, so it cannot move the cursor or
//! turn the line around.

use std::path::PathBuf;
use std::process::ExitCode;

use rootgate_core::headless::{Headless, InstallRefused};
use rootgate_core::instance;
use rootgate_core::sources::bundle::{BundleError, Bundles, Opened};
use rootgate_core::sources::installed::InstallError;
use rootgate_core::sources::offer::{Offer, OfferError, Setting, SettingKind, Signature};

use crate::apps_cmd::{fail, opts, settings, shown_path, usage};
use crate::help::INSTALL as HELP;

/// A value only the person can give is missing (as `rootgate import`).
const NEEDS_VALUE: u8 = 3;

/// `rootgate install`.
pub fn install(args: &[String]) -> ExitCode {
    let (files, options) = split_file(args);
    let o = match opts(&options, &["--set", "--dry-run"], false) {
        Ok(o) => o,
        Err(e) => return usage(&e, HELP),
    };
    let file = match files.as_slice() {
        [file] => PathBuf::from(file),
        [] => return usage("name the bundle to install (a .mcpb file)", HELP),
        _ => return usage("install takes one bundle at a time", HELP),
    };
    if !instance::is_bundle(&file) {
        return usage(
            &format!(
                "{} is not an MCP bundle: its name does not end in .mcpb",
                shown_path(&file.display().to_string())
            ),
            HELP,
        );
    }
    let settings = match settings() {
        Ok(settings) => settings,
        Err(e) => return fail(e),
    };
    if !o.dry_run {
        let request = instance::request_for(std::slice::from_ref(&file));
        match instance::hand_over_if_running(settings.path(), &request, instance::PATIENCE) {
            Ok(Some(answer)) => {
                if !o.set.is_empty() {
                    eprintln!(
                        "rootgate: the window asks for the bundle's settings itself; the --set \
                         values were not passed to it"
                    );
                }
                return instance::tell(&answer);
            }
            Ok(None) => {}
            Err(e) => return fail(e),
        }
    }
    let opened = match Bundles::default_location().and_then(|b| b.open(&file)) {
        Ok(opened) => opened,
        Err(e) => return fail(e),
    };
    show(&opened.offer);
    if let Some(why) = &opened.offer.about.unfit {
        return fail(format!(
            "{} is not installed: {}",
            text(&opened.offer.about.title),
            text(why)
        ));
    }
    if o.dry_run {
        println!("(dry run: nothing unpacked or installed)");
        return ExitCode::SUCCESS;
    }
    let rootgate = match Headless::open(settings.clone()) {
        Ok(rootgate) => rootgate,
        Err(e) => return fail(e),
    };
    install_opened(&opened, &rootgate, &o.set)
}

/// The file named on the command line apart from the options (and the
/// values that follow `--set`).
fn split_file(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut files = Vec::new();
    let mut options = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--set" {
            options.push(arg.clone());
            options.extend(it.next().cloned());
        } else if arg.starts_with("--") {
            options.push(arg.clone());
        } else {
            files.push(arg.clone());
        }
    }
    (files, options)
}

fn install_opened(
    opened: &Opened,
    rootgate: &Headless,
    values: &std::collections::BTreeMap<String, String>,
) -> ExitCode {
    let offer = &opened.offer;
    // Whether it was installed before and the name it takes are read from
    // the settings and then saved into them: no other writer in between.
    let done = match rootgate.install_bundle(opened, values) {
        Ok(done) => done,
        Err(InstallRefused::Bundle(BundleError::Install(InstallError::Offer(
            e @ OfferError::Missing { .. },
        )))) => {
            eprintln!("rootgate: {e}; pass it with --set KEY=VALUE, or --set KEY=- to type it");
            return ExitCode::from(NEEDS_VALUE);
        }
        Err(e) => return fail(e),
    };
    let name = text(&done.server.name);
    if done.updated && done.server.is_approved() {
        println!(
            "Updated the server {name} to {} {}: its command did not change, and stays approved.",
            text(&offer.about.title),
            text(&offer.about.version)
        );
    } else if done.updated {
        println!(
            "Updated the server {name} to {} {}: its new command waits for your approval in \
             the Rootgate window.",
            text(&offer.about.title),
            text(&offer.about.version)
        );
    } else {
        println!(
            "Installed {} {} as the server {name}: it waits for your approval in the Rootgate \
             window.",
            text(&offer.about.title),
            text(&offer.about.version)
        );
    }
    println!("  {}", text(&done.server.masked_command_line()));
    println!(
        "  Its files are in {}.",
        shown_path(&opened.folder().display().to_string())
    );
    crate::apps_cmd::say_unstored(rootgate, &done.server);
    say_folders(offer, &done.folders);
    ExitCode::SUCCESS
}

/// What is left to do about the server's folders.
fn say_folders(offer: &Offer, folders: &[PathBuf]) {
    let takes_folders = offer
        .settings
        .iter()
        .any(|s| matches!(s.kind, SettingKind::Folder { .. }));
    if !folders.is_empty() {
        println!(
            "Its folders are not shared yet. To be asked about them, open the window with them:\n  {}",
            crate::apps_cmd::open_line(folders)
        );
    } else if takes_folders {
        println!(
            "It takes folders, and none is shared with it yet: share them with it in the window \
             (`rootgate FOLDER` asks about one)."
        );
    } else {
        println!("Open the window (`rootgate`) to approve it.");
    }
}

/// Text from the bundle as the terminal shows it (see the module's note).
fn text(words: &str) -> String {
    shown_path(words)
}

/// Prints what the bundle is and asks for.
fn show(offer: &Offer) {
    let about = &offer.about;
    println!(
        "{} {} ({})",
        text(&about.title),
        text(&about.version),
        text(&about.name)
    );
    if !about.description.is_empty() {
        println!("  {}", text(&about.description));
    }
    let fields = [
        ("By", about.author.as_deref()),
        ("Homepage", about.homepage.as_deref()),
        ("License", about.license.as_deref()),
        ("Runs", Some(about.runs.as_str())),
    ];
    for (label, value) in fields {
        if let Some(value) = value {
            println!("  {label}: {}", text(value));
        }
    }
    for (label, list) in [("Tools", &about.tools), ("Prompts", &about.prompts)] {
        if !list.is_empty() {
            println!("  {label} it declares:");
        }
        for named in list {
            match named.description.is_empty() {
                true => println!("    {}", text(&named.name)),
                false => println!("    {}: {}", text(&named.name), text(&named.description)),
            }
        }
    }
    if !about.compatibility.is_empty() {
        let needs: Vec<String> = about.compatibility.iter().map(|c| text(c)).collect();
        println!("  Needs: {}", needs.join("; "));
    }
    println!("  Signature: {}", signature_words(&about.signature));
    if !offer.settings.is_empty() {
        println!("  Settings:");
    }
    for setting in &offer.settings {
        println!("    {}", setting_words(setting));
    }
    for note in &offer.notes {
        println!("  Note: {}", text(note));
    }
}

fn signature_words(signature: &Signature) -> String {
    match signature {
        Signature::Unsigned | Signature::NotApplicable => "not signed".into(),
        Signature::Signed { by, checked } => {
            let by = by
                .as_deref()
                .map(|b| format!(" by \"{}\"", text(b)))
                .unwrap_or_default();
            if *checked {
                format!("signed{by}, verified")
            } else {
                format!("signed{by}; not verified (Rootgate does not check bundle signatures)")
            }
        }
        Signature::Invalid { reason } => format!("broken: {}", text(reason)),
    }
}

/// One setting in a line: its title and key, what it takes, and how to
/// give it.
fn setting_words(s: &Setting) -> String {
    let kind = match &s.kind {
        SettingKind::Text if s.secret => "a secret, kept in the keyring".to_owned(),
        SettingKind::Text => "text".to_owned(),
        SettingKind::Number { min, max } => match (min, max) {
            (Some(min), Some(max)) => format!("a number from {min} to {max}"),
            (Some(min), None) => format!("a number, at least {min}"),
            (None, Some(max)) => format!("a number, at most {max}"),
            (None, None) => "a number".to_owned(),
        },
        SettingKind::Boolean => "true or false".to_owned(),
        SettingKind::Choice { choices } => format!("one of {}", choices.join(", ")),
        SettingKind::File => "a file's path".to_owned(),
        SettingKind::Folder { multiple: true } => {
            "folders: the ones you share with it, not typed".to_owned()
        }
        SettingKind::Folder { multiple: false } => {
            "one folder: the one you share with it, not typed".to_owned()
        }
    };
    let mut line = format!("{} (`{}`): {kind}", text(&s.title), text(&s.key));
    if let Some(default) = &s.default {
        line.push_str(&format!(", default {}", text(default)));
    }
    if s.required && !matches!(s.kind, SettingKind::Folder { .. }) {
        line.push_str(", needed");
    }
    if !s.description.is_empty() {
        line.push_str(&format!(". {}", text(&s.description)));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_told_from_the_options_and_set_values() {
        let args: Vec<String> = ["--set", "a=b", "x.mcpb", "--dry-run"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (files, options) = split_file(&args);
        assert_eq!(files, ["x.mcpb"]);
        assert_eq!(options, ["--set", "a=b", "--dry-run"]);
    }

    #[test]
    fn a_signature_is_never_called_verified_unless_checked() {
        let said = signature_words(&Signature::Signed {
            by: Some("Pub\u{202E}lisher".into()),
            checked: false,
        });
        assert!(said.contains("not verified"), "{said}");
        assert!(said.contains("<U+202E>"), "{said}");
    }
}
