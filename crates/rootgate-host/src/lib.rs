//! `rootgate-host`: the host's foreign stacks, each behind a small API that
//! knows no Rootgate word. `keyring` speaks the Secret Service API over
//! D-Bus (GNOME Keyring, KWallet, KeePassXC) and finds the session bus;
//! `watch` is the process's one inotify watcher; `mounts` reads and follows
//! the mount table; `private_files` makes a folder only the user may enter
//! and a lock file only they may open.
//!
//! They sit below the vocabulary crate (`rootgate-model`) so that it holds
//! Rootgate's words and files and no foreign protocol: the model says which
//! item is which server's variable (`secrets::username`) and which folders
//! to watch (`monitor`); this crate only does what it is told.
//!
//! What is not here: any server, folder or consent of Rootgate's, and any
//! decision: a caller above chooses what to keep, watch and read.

pub mod keyring;
pub mod mounts;
pub mod private_files;
pub mod watch;
