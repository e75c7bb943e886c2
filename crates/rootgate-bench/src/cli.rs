//! The driver's command line, exactly the bench README's contract:
//!
//! ```text
//! <driver> <metric> [--n N] [--reps R] [--iters K] [--warmup W]
//!          [--sizes 1,100,10000] [--spawn-warmup 1] -- <server argv...>
//! ```
//!
//! Defaults `--n 1 --reps 5 --iters 200 --warmup 10 --sizes 1,100,10000
//! --spawn-warmup 1`. One option of this driver's own may appear anywhere
//! before `--` (so `run_all.sh`'s `CLIENTS="name=/path/driver --flag"`
//! works): `--settings-dir DIR`, the folder the temporary settings file is
//! made in (see the driver's documentation for the default).

use std::fmt;
use std::path::PathBuf;

/// The four metrics of the bench.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Spawn,
    SpawnRoots,
    Propagate,
    Rootsize,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::Spawn => "spawn",
            Metric::SpawnRoots => "spawn-roots",
            Metric::Propagate => "propagate",
            Metric::Rootsize => "rootsize",
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    pub metric: Metric,
    pub n: usize,
    pub reps: usize,
    pub iters: usize,
    pub warmup: usize,
    pub sizes: Vec<usize>,
    pub spawn_warmup: usize,
    pub settings_dir: Option<PathBuf>,
    /// Start every server held (enforced roots: bubblewrap and Landlock),
    /// to measure what the sandbox costs a start.
    pub held: bool,
    /// The server's argv (after `--`), never empty.
    pub server: Vec<String>,
}

pub const USAGE: &str = "usage: rootgate-bench-driver <spawn|spawn-roots|propagate|rootsize> \
[--n N] [--reps R] [--iters K] [--warmup W] [--sizes 1,100,10000] [--spawn-warmup 1] \
[--settings-dir DIR] [--held] -- <server argv...>";

/// Parses the arguments after the program name.
pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Args, String> {
    let args: Vec<String> = args.into_iter().collect();
    let dd = args
        .iter()
        .position(|a| a == "--")
        .ok_or("missing `--` before the server command")?;
    let (opts, server) = (&args[..dd], &args[dd + 1..]);
    if server.is_empty() {
        return Err("no server command after `--`".into());
    }
    let mut metric = None;
    let mut parsed = Args {
        metric: Metric::Spawn,
        n: 1,
        reps: 5,
        iters: 200,
        warmup: 10,
        sizes: vec![1, 100, 10_000],
        spawn_warmup: 1,
        settings_dir: None,
        held: false,
        server: server.to_vec(),
    };
    let mut it = opts.iter();
    while let Some(arg) = it.next() {
        if arg == "--held" {
            parsed.held = true;
            continue;
        }
        if !arg.starts_with("--") {
            if metric.is_some() {
                return Err(format!("unexpected argument `{arg}`"));
            }
            metric = Some(match arg.as_str() {
                "spawn" => Metric::Spawn,
                "spawn-roots" => Metric::SpawnRoots,
                "propagate" => Metric::Propagate,
                "rootsize" => Metric::Rootsize,
                other => return Err(format!("unknown metric `{other}`")),
            });
            continue;
        }
        let value = it
            .next()
            .ok_or_else(|| format!("option {arg} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("option {arg}: `{value}` is not a whole number"))
        };
        match arg.as_str() {
            "--n" => parsed.n = number()?,
            "--reps" => parsed.reps = number()?,
            "--iters" => parsed.iters = number()?,
            "--warmup" => parsed.warmup = number()?,
            "--spawn-warmup" => parsed.spawn_warmup = number()?,
            "--sizes" => {
                parsed.sizes = value
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .parse::<usize>()
                            .map_err(|_| format!("--sizes: `{s}` is not a whole number"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--settings-dir" => parsed.settings_dir = Some(PathBuf::from(value)),
            other => return Err(format!("unknown option {other}")),
        }
    }
    parsed.metric = metric.ok_or("no metric given")?;
    if parsed.n == 0 || parsed.reps == 0 || parsed.iters == 0 {
        return Err("--n, --reps and --iters must be at least 1".into());
    }
    if parsed.sizes.is_empty() || parsed.sizes.contains(&0) {
        return Err("--sizes must list sizes of at least 1".into());
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Args, String> {
        parse(s.split_whitespace().map(String::from))
    }

    #[test]
    fn defaults_are_the_readme_defaults() {
        let a = args("spawn -- python3 -I -S server.py").unwrap();
        assert_eq!(a.metric, Metric::Spawn);
        assert_eq!((a.n, a.reps, a.iters, a.warmup), (1, 5, 200, 10));
        assert_eq!(a.sizes, vec![1, 100, 10_000]);
        assert_eq!(a.spawn_warmup, 1);
        assert_eq!(a.server, vec!["python3", "-I", "-S", "server.py"]);
    }

    #[test]
    fn options_and_our_own_flag_go_anywhere_before_the_separator() {
        let a = args(
            "--settings-dir /dev/shm rootsize --sizes 1,100 --iters 20 --warmup 0 -- node s.mjs --n 3",
        )
        .unwrap();
        assert_eq!(a.metric, Metric::Rootsize);
        assert_eq!(a.sizes, vec![1, 100]);
        assert_eq!((a.iters, a.warmup, a.n), (20, 0, 1));
        assert_eq!(a.settings_dir, Some(PathBuf::from("/dev/shm")));
        // Everything after `--` belongs to the server.
        assert_eq!(a.server, vec!["node", "s.mjs", "--n", "3"]);
    }

    #[test]
    fn mistakes_are_refused() {
        assert!(args("spawn python3").is_err());
        assert!(args("spawn --").is_err());
        assert!(args("-- python3").is_err());
        assert!(args("bogus -- python3").is_err());
        assert!(args("spawn --n -- python3").is_err());
        assert!(args("spawn --n x -- python3").is_err());
        assert!(args("spawn --frobnicate 1 -- python3").is_err());
        assert!(args("rootsize --sizes 1,,3 -- python3").is_err());
        assert!(args("spawn --n 0 -- python3").is_err());
    }
}
