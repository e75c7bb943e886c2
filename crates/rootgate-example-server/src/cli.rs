//! The example server's command line: what it can be asked for
//! ([`Config`]: ask for roots at once or not, a report file, a name, a slow
//! or scheduled ask, one misbehaviour), `--help`'s text, and the parsing,
//! by hand because the crate keeps its dependencies few.
//!
//! Not here: what the options make the server do, which is the state
//! machine's (`state`) and the loop's (`run`).

use std::ffi::OsString;
use std::path::PathBuf;

use crate::misbehave;

/// The name reported in `serverInfo` unless `--name` overrides it. It is
/// the name the server had before the crate was renamed, kept because AI
/// apps' configs, people's logs and the end-to-end tests know it by it.
const DEFAULT_NAME: &str = "rootgate-fixture";

pub(crate) const USAGE: &str = "\
Usage: rootgate-example-server [OPTIONS]

A small MCP server that speaks newline-delimited JSON-RPC on stdin/stdout and
reports the roots its client shares with it. Diagnostics go to stderr.

Options:
  --no-roots-on-init  Do not ask for roots/list after notifications/initialized.
  --report FILE       Append one JSON line to FILE for every roots answer.
  --name NAME         Report NAME as serverInfo.name (default: rootgate-fixture).
  --ask-delay-ms N    Wait N milliseconds before sending each roots/list request.
  --ignore-list-changed
                      Ask for roots/list once, after initialized, and never again:
                      notifications/roots/list_changed changes nothing.
  --ask-every-ms N    Ignore notifications/roots/list_changed and ask for
                      roots/list every N milliseconds instead (from a second
                      thread, ids \"poll-0\", \"poll-1\", ...).
  --misbehave KIND    Misbehave in one way, for fault-injection tests (below).
  --flood-requests N  roots-flood, stop-reading-input: how many roots/list
                      requests (default 10000).
  --flood-bytes N     stderr-flood: how many bytes (default 1073741824, 1 GiB).
  --help              Print this help and exit.

Misbehaviours (KIND); answers to requests made up by a misbehaviour go to the
--report file as {\"event\":\"reply\",...} lines (roots-flood: one
{\"event\":\"flood\",...} line once every request was answered):
  exit-at-once                   exit with code 3 before reading anything
  crash-after-init               panic (exit code 101) after the first roots answer
  exit-on-list-changed           exit with code 4 when told the roots changed
  no-initialize-answer           read input but never answer initialize
  stdout-non-json                write non-JSON lines before initialize is answered
                                 and after every roots answer
  stdout-invalid-utf8            the same with lines that are not UTF-8
  stdout-huge-line               after the first roots answer, write one 50 MB line,
                                 then a logging message with data \"after the huge line\"
  stdout-no-newline              after the first roots answer, write a message without
                                 its newline and exit with code 0
  stdout-wrong-types             after the first roots answer, write JSON-RPC with wrong
                                 types, then a valid roots/list (id \"wt-valid\")
  stdout-unknown-ids             after the first roots answer, write responses to
                                 requests never made; answer each tools/call after a
                                 forged answer to the client's next request id
  roots-before-initialized       send roots/list before answering initialize (id
                                 \"early-before-initialize-answer\") and wait for its
                                 answer before answering; send another before the
                                 client's initialized (id \"early-before-initialized\")
  roots-flood                    after initialized, send --flood-requests roots/list
                                 requests from a second thread, as fast as possible
  undeclared-requests            after the first roots answer, send
                                 sampling/createMessage and elicitation/create
  ignore-stdin-close             keep running when stdin closes (SIGTERM ends it)
  ignore-stdin-close-and-sigterm keep running when stdin closes, block SIGTERM
  stderr-flood                   after the first roots answer, write --flood-bytes
                                 (rounded up to whole MiB) to stderr from a second
                                 thread, then a line saying how much
  stop-reading-input             after the first roots answer, never read input again
                                 while sending --flood-requests roots/list requests
                                 from a second thread (SIGTERM ends it)";

/// What the command line asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Config {
    /// Whether to ask for roots as soon as the client sends `notifications/initialized`.
    pub(crate) roots_on_init: bool,
    /// Where to append one JSON line per roots answer, if anywhere.
    pub(crate) report: Option<PathBuf>,
    /// The name to report in `serverInfo`.
    pub(crate) name: String,
    /// How long to wait before sending each `roots/list` request: makes the
    /// server slow to ask, as real servers with busy event loops are, so tests
    /// can see how the client behaves while a request is still to come.
    pub(crate) ask_delay: std::time::Duration,
    /// The one way to misbehave, for fault-injection tests.
    pub(crate) misbehave: Option<misbehave::Kind>,
    /// Whether `notifications/roots/list_changed` is ignored (a server that
    /// asks once, or only on its own schedule).
    pub(crate) ignore_list_changed: bool,
    /// How often to ask for `roots/list` on its own, if at all.
    pub(crate) ask_every: Option<std::time::Duration>,
    /// How many `roots/list` requests `roots-flood` sends.
    pub(crate) flood_requests: u64,
    /// How many bytes `stderr-flood` writes.
    pub(crate) flood_bytes: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            roots_on_init: true,
            report: None,
            name: DEFAULT_NAME.to_owned(),
            ask_delay: std::time::Duration::ZERO,
            misbehave: None,
            ignore_list_changed: false,
            ask_every: None,
            flood_requests: misbehave::DEFAULT_FLOOD_REQUESTS,
            flood_bytes: misbehave::DEFAULT_FLOOD_BYTES,
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Command {
    Run(Config),
    Help,
}

/// Parses the arguments after the program name.
///
/// This is done by hand because the crate keeps its dependencies few. Values
/// are taken as `OsString` so that a report path which is not valid UTF-8 still
/// works; only the server name has to be text, because it goes into JSON.
pub(crate) fn parse_args<I: IntoIterator<Item = OsString>>(args: I) -> Result<Command, String> {
    let mut config = Config::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let text = arg.to_str();
        match text {
            Some("--help" | "-h") => return Ok(Command::Help),
            Some("--no-roots-on-init") => config.roots_on_init = false,
            Some("--report") => {
                let path = args.next().ok_or("--report needs a FILE argument")?;
                config.report = Some(PathBuf::from(path));
            }
            Some("--ask-delay-ms") => {
                let value = args.next().ok_or("--ask-delay-ms needs a number")?;
                let ms: u64 = value
                    .to_str()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--ask-delay-ms needs a number of milliseconds")?;
                config.ask_delay = std::time::Duration::from_millis(ms);
            }
            Some("--ignore-list-changed") => config.ignore_list_changed = true,
            Some("--ask-every-ms") => {
                let value = args.next().ok_or("--ask-every-ms needs a number")?;
                let ms: u64 = value
                    .to_str()
                    .and_then(|v| v.parse().ok())
                    .filter(|ms| *ms > 0)
                    .ok_or("--ask-every-ms needs a positive number of milliseconds")?;
                config.ask_every = Some(std::time::Duration::from_millis(ms));
                config.ignore_list_changed = true;
            }
            Some("--misbehave") => {
                let value = args.next().ok_or("--misbehave needs a KIND (see --help)")?;
                let kind = value
                    .to_str()
                    .and_then(misbehave::Kind::parse)
                    .ok_or_else(|| {
                        format!(
                            "unknown misbehaviour {}; see --help for the list",
                            value.to_string_lossy()
                        )
                    })?;
                config.misbehave = Some(kind);
            }
            Some(flag @ ("--flood-requests" | "--flood-bytes")) => {
                let count: u64 = args
                    .next()
                    .and_then(|v| v.to_str().and_then(|v| v.parse().ok()))
                    .ok_or_else(|| format!("{flag} needs a whole number"))?;
                if flag == "--flood-requests" {
                    config.flood_requests = count;
                } else {
                    config.flood_bytes = count;
                }
            }
            Some("--name") => {
                let name = args.next().ok_or("--name needs a NAME argument")?;
                config.name = name
                    .into_string()
                    .map_err(|_| "--name must be valid UTF-8")?;
            }
            Some(other) if other.starts_with("--report=") => {
                config.report = Some(PathBuf::from(&other["--report=".len()..]));
            }
            Some(other) if other.starts_with("--name=") => {
                config.name = other["--name=".len()..].to_owned();
            }
            _ => return Err(format!("unknown argument: {}", arg.to_string_lossy())),
        }
    }
    Ok(Command::Run(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn parse_args_reads_every_flag() {
        assert_eq!(parse_args(args(&[])), Ok(Command::Run(Config::default())));
        assert_eq!(parse_args(args(&["--help"])), Ok(Command::Help));
        assert_eq!(
            parse_args(args(&[
                "--no-roots-on-init",
                "--report",
                "/tmp/r.jsonl",
                "--name",
                "demo",
                "--ask-delay-ms",
                "250"
            ])),
            Ok(Command::Run(Config {
                roots_on_init: false,
                report: Some(PathBuf::from("/tmp/r.jsonl")),
                name: "demo".to_owned(),
                ask_delay: std::time::Duration::from_millis(250),
                ..Config::default()
            }))
        );
        assert_eq!(
            parse_args(args(&["--report=/tmp/x", "--name=n"])),
            Ok(Command::Run(Config {
                report: Some(PathBuf::from("/tmp/x")),
                name: "n".to_owned(),
                ..Config::default()
            }))
        );
        assert!(parse_args(args(&["--report"])).is_err());
        assert!(parse_args(args(&["--name"])).is_err());
        assert!(parse_args(args(&["--bogus"])).is_err());
    }

    #[test]
    fn parse_args_reads_misbehaviours_and_their_sizes() {
        assert_eq!(
            parse_args(args(&[
                "--misbehave",
                "roots-flood",
                "--flood-requests",
                "5",
                "--flood-bytes",
                "7"
            ])),
            Ok(Command::Run(Config {
                misbehave: Some(misbehave::Kind::RootsFlood),
                flood_requests: 5,
                flood_bytes: 7,
                ..Config::default()
            }))
        );
        let err = parse_args(args(&["--misbehave", "explode"])).unwrap_err();
        assert!(err.contains("explode"), "{err}");
        assert!(parse_args(args(&["--misbehave"])).is_err());
        assert!(parse_args(args(&["--flood-bytes", "lots"])).is_err());
        // Every name parses back to its kind, and --help lists it.
        for (name, kind) in misbehave::Kind::ALL {
            assert_eq!(misbehave::Kind::parse(name), Some(kind));
            assert_eq!(kind.name(), name);
            assert!(USAGE.contains(&format!("  {name} ")), "{name} in --help");
        }
    }
}
