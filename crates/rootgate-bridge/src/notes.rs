//! Where a connection's notes go: the lines `rootgate: …` an AI app shows
//! in its log of the server (why a server cannot start, a damaged settings
//! file, a dropped line). A bridge of its own writes them on its standard
//! error; the gate writes each connection's on the standard error its door
//! handed over, so every app reads its own and no other's.
//!
//! What is not here: what the notes say (the relay and `connect` do), and
//! the gate's own log (its standard error, `gate.rs`).

use std::fs::File;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

/// A connection's standard error.
#[derive(Clone, Default)]
pub struct Notes {
    /// The door's standard error; `None` for this process's own. Emptied
    /// when the connection ends (`close`), whoever still holds a copy.
    to: Option<Arc<Mutex<Option<File>>>>,
}

impl Notes {
    /// This process's standard error.
    pub fn stderr() -> Notes {
        Notes::default()
    }

    /// A door's standard error, handed to the gate.
    pub fn to(fd: OwnedFd) -> Notes {
        Notes {
            to: Some(Arc::new(Mutex::new(Some(File::from(fd))))),
        }
    }

    /// Writes `rootgate: NOTE` as one line. An app that does not read its
    /// server's standard error can fill the pipe and block a write, so a
    /// door's is written off the runtime's threads: one connection's full
    /// pipe never stalls another's.
    pub fn say(&self, note: &str) {
        let line = format!("rootgate: {note}\n");
        let Some(to) = &self.to else {
            let _ = std::io::stderr().write_all(line.as_bytes());
            return;
        };
        let to = Arc::clone(to);
        let write = move || {
            if let Ok(mut file) = to.lock()
                && let Some(file) = file.as_mut()
            {
                let _ = file.write_all(line.as_bytes());
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(write)),
            Err(_) => write(),
        }
    }

    /// Closes the door's standard error: the connection has ended, and the
    /// app waits for every copy of its pipe to close before it sees the end
    /// of its server's log. Later notes go nowhere.
    pub fn close(&self) {
        if let Some(to) = &self.to
            && let Ok(mut file) = to.lock()
        {
            file.take();
        }
    }
}
