//! `rootgate search WORDS...` and `rootgate add NAME[@VERSION]`: the MCP
//! Registry from a terminal.
//!
//! `search` lists the registry's servers whose names hold the words, each
//! with its packages and the `rootgate add` line that adds it, a page at a
//! time (`--cursor`); with no network it answers from the cache and says
//! so with the cache's date. `add` reads one version (the latest unless
//! named), shows what it runs, and adds it as a server that is not approved
//! and shares no folder (through `rootgate_core::sources`, which the window
//! uses too), or says in words why it cannot run here. Neither prints a
//! secret's value. What is not here: reading the registry's format or
//! installing (see `rootgate_core::sources::registry` and `installed`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use rootgate_core::bridge::window_socket::{Unreached, connect_window, refusal_words};
use rootgate_core::connections::socket_path;
use rootgate_core::headless::{Headless, InstallRefused};
use rootgate_core::sources::bundle::{BundleError, Bundles};
use rootgate_core::sources::installable::Installable;
use rootgate_core::sources::installed::InstallError;
use rootgate_core::sources::offer::{Offer, OfferError, SettingKind};
use rootgate_core::sources::registry::cache::{rootgate_cache_dir, utc};
use rootgate_core::sources::registry::mapping::{self, Chosen, packages_in_words};
use rootgate_core::sources::registry::server_json::ServerList;
use rootgate_core::sources::registry::{self, Client, Fetched, RegistryError};
use serde_json::json;

use crate::apps_cmd::{fail, print_json, read_value, say_unstored, settings, shown_path, usage};

/// A value only the person can give is missing.
const NEEDS_VALUE: u8 = 3;
/// How many servers a search asks for at a time, unless told.
const PAGE: u32 = 30;

/// The options of `search` and `add`.
#[derive(Default)]
struct Opts {
    words: Vec<String>,
    registry: Option<String>,
    cursor: Option<String>,
    limit: Option<u32>,
    package: Option<String>,
    json: bool,
    set: BTreeMap<String, String>,
}

/// Reads `args`; `takes` lists the options the command accepts.
fn opts(args: &[String], takes: &[&str]) -> Result<Opts, String> {
    let mut o = Opts::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match arg.as_str() {
            flag if flag.starts_with("--") && !takes.contains(&flag) => {
                return Err(format!("unknown option {flag}"));
            }
            "--json" => o.json = true,
            "--registry" => o.registry = Some(value("--registry")?),
            "--cursor" => o.cursor = Some(value("--cursor")?),
            "--package" => o.package = Some(value("--package")?),
            "--limit" => {
                let n = value("--limit")?;
                o.limit = Some(
                    n.parse()
                        .ok()
                        .filter(|n| (1..=100).contains(n))
                        .ok_or("--limit takes a number from 1 to 100")?,
                );
            }
            "--set" => {
                let pair = value("--set")?;
                let (key, given) = pair
                    .split_once('=')
                    .filter(|(k, _)| !k.is_empty())
                    .ok_or("--set needs KEY=VALUE")?;
                let given = match given {
                    "-" => read_value(key)?,
                    given => given.to_owned(),
                };
                o.set.insert(key.to_owned(), given);
            }
            word => o.words.push(word.to_owned()),
        }
    }
    Ok(o)
}

/// A client of the registry `--registry` names, else the one chosen in
/// the window's Settings, else the environment's, else the official one.
fn client(o: &Opts) -> Result<Client, String> {
    let root = rootgate_cache_dir()
        .ok_or("HOME is not set, so there is no cache folder for the registry's answers")?;
    let chosen = o.registry.clone().or_else(|| {
        // A settings file that cannot be read leaves the choice to the
        // environment: the search itself needs nothing else from it.
        let (settings, _) = settings().ok()?.read().ok()?;
        settings.preferences.registry
    });
    Client::new(&registry::address(chosen.as_deref()), &root).map_err(|e| e.to_string())
}

/// The line that says an answer came from the cache, and from when.
fn from_cache(client: &Client, at: u64) -> String {
    format!(
        "The registry at {} cannot be reached: this answer is from the cache of {}.",
        client.address(),
        utc(at)
    )
}

/// `rootgate search`.
pub fn search(args: &[String]) -> ExitCode {
    let o = match opts(args, &["--registry", "--cursor", "--limit", "--json"]) {
        Ok(o) if o.words.is_empty() => return usage("say what to search for", crate::help::SEARCH),
        Ok(o) => o,
        Err(e) => return usage(&e, crate::help::SEARCH),
    };
    let client = match client(&o) {
        Ok(client) => client,
        Err(e) => return fail(e),
    };
    let fetched = match client.search(&o.words, o.cursor.as_deref(), o.limit.unwrap_or(PAGE)) {
        Ok(fetched) => fetched,
        Err(RegistryError::NoNetwork { registry, reason }) => {
            return fail(format!(
                "no network: cannot reach the registry at {registry} ({reason}), and nothing \
                 from it is in the cache yet"
            ));
        }
        Err(e) => return fail(e),
    };
    let next = fetched.value.metadata.next().map(str::to_owned);
    if o.json {
        return print_search(&client, &fetched, next);
    }
    if let Some(at) = fetched.cached_at {
        println!("{}", from_cache(&client, at));
    }
    if fetched.value.servers.is_empty() {
        println!(
            "No server in the registry at {} matches \"{}\".",
            client.address(),
            o.words.join(" ")
        );
    }
    for answer in &fetched.value.servers {
        let s = &answer.server;
        let title = s.title.as_deref().filter(|t| *t != s.name);
        println!(
            "{} {}{}",
            shown_path(&s.name),
            shown_path(&s.version),
            title
                .map(|t| format!("  ({})", shown_path(t)))
                .unwrap_or_default()
        );
        if !s.description.is_empty() {
            println!("  {}", shown_path(&s.description));
        }
        for package in packages_in_words(s) {
            println!("  {}", shown_path(&package));
        }
        println!(
            "  rootgate add {}@{}",
            shown_path(&s.name),
            shown_path(&s.version)
        );
    }
    if let Some(cursor) = next {
        println!(
            "More: rootgate search {} --cursor {}",
            o.words.join(" "),
            rootgate_core::servers::shell_quote(&cursor)
        );
    }
    ExitCode::SUCCESS
}

/// A search's answer as one JSON object.
fn print_search(client: &Client, fetched: &Fetched<ServerList>, next: Option<String>) -> ExitCode {
    let servers: Vec<_> = fetched
        .value
        .servers
        .iter()
        .map(|a| {
            let s = &a.server;
            json!({
                "name": s.name, "version": s.version, "title": s.title,
                "description": s.description, "packages": packages_in_words(s),
                "add": format!("{}@{}", s.name, s.version),
            })
        })
        .collect();
    print_json(&json!({
        "registry": client.address(),
        "fromCache": fetched.cached_at.map(utc),
        "servers": servers,
        "nextCursor": next,
    }))
}

/// `rootgate add`.
pub fn add(args: &[String]) -> ExitCode {
    let o = match opts(args, &["--registry", "--package", "--set"]) {
        Ok(o) => o,
        Err(e) => return usage(&e, crate::help::ADD),
    };
    let [wanted] = o.words.as_slice() else {
        return usage("name one server of the registry", crate::help::ADD);
    };
    let (name, version) = wanted.split_once('@').unwrap_or((wanted, "latest"));
    let settings = match settings() {
        Ok(settings) => settings,
        Err(e) => return fail(e),
    };
    match connect_window(&socket_path(settings.path())) {
        Ok(_) => {
            return fail(
                "the Rootgate window is open, and it holds the settings: add it from its Servers \
                 view, Add from the registry",
            );
        }
        Err(Unreached::NotOurs(why)) => return fail(refusal_words(&why)),
        Err(_) => {}
    }
    let client = match client(&o) {
        Ok(client) => client,
        Err(e) => return fail(e),
    };
    let fetched = match client.version(name, version) {
        Ok(fetched) => fetched,
        Err(e) => return fail(e),
    };
    if let Some(at) = fetched.cached_at {
        println!("{}", from_cache(&client, at));
    }
    let answer = &fetched.value;
    let package = match mapping::choose(&answer.server, o.package.as_deref()) {
        Ok(package) => package,
        Err(e) => return fail(e),
    };
    let chosen = match mapping::chosen(client.address(), answer, package) {
        Chosen::Offer(offer) => Installable::Offer(offer),
        Chosen::Bundle(bundle) => {
            let opened = Bundles::default_location()
                .map_err(|e| e.to_string())
                .and_then(|bundles| {
                    registry::bundle_offer(&client, &bundle, &bundles).map_err(|e| e.to_string())
                });
            match opened {
                Ok(opened) => Installable::Bundle(Box::new(opened)),
                Err(e) => return fail(e),
            }
        }
    };
    add_offer(&settings, &chosen, &o.set)
}

/// Shows `chosen`, and adds it to the settings with `values`.
fn add_offer(
    settings: &rootgate_core::settings::SettingsFile,
    chosen: &Installable,
    values: &BTreeMap<String, String>,
) -> ExitCode {
    let offer = chosen.offer();
    let about = &offer.about;
    let name = (about.title != about.name).then(|| format!(" ({})", shown_path(&about.name)));
    println!(
        "{} {}{}",
        shown_path(&about.title),
        shown_path(&about.version),
        name.unwrap_or_default()
    );
    if let Some(why) = &about.unfit {
        return fail(format!(
            "{} cannot be added: {}",
            shown_path(&about.title),
            shown_path(why)
        ));
    }
    println!("  runs {}", shown_path(&about.runs));
    let rootgate = match Headless::open(settings.clone()) {
        Ok(rootgate) => rootgate,
        Err(e) => return fail(e),
    };
    // Whether it was added before and the name it takes are read from the
    // settings and then saved into them: no other writer in between.
    let done = match rootgate.install(chosen, values) {
        Ok(done) => done,
        Err(InstallRefused::Bundle(BundleError::Install(InstallError::Offer(
            e @ OfferError::Missing { .. },
        )))) => {
            eprintln!(
                "rootgate: {e}; pass it with --set KEY=VALUE, or --set KEY=- to type it \
                 (`rootgate help add`)"
            );
            return ExitCode::from(NEEDS_VALUE);
        }
        Err(e) => return fail(e),
    };
    let verb = if done.updated { "Updated" } else { "Added" };
    println!(
        "{verb} {} from the registry; it waits for your approval in the Rootgate window:",
        shown_path(&done.server.name)
    );
    println!("  {}", shown_path(&done.server.masked_command_line()));
    say_unstored(&rootgate, &done.server);
    for note in &offer.notes {
        println!("  {}", shown_path(note));
    }
    say_folders(offer, &done.folders);
    ExitCode::SUCCESS
}

/// Says how the server's folders come to it: never from here.
fn say_folders(offer: &Offer, folders: &[PathBuf]) {
    if !offer
        .settings
        .iter()
        .any(|s| matches!(s.kind, SettingKind::Folder { .. }))
    {
        return;
    }
    println!(
        "Its folders are not shared yet: it sees the folders you share with it in the window, \
         and no others."
    );
    if !folders.is_empty() {
        println!(
            "To be asked about the publisher's suggestion, open the window with it:\n  {}",
            crate::apps_cmd::open_line(folders)
        );
    }
}
