//! `rootgate-door`: what an AI app runs as `rootgate connect NAME`. The door
//! hands the app's standard input, output and error to Rootgate's resident
//! gate over the user's private socket and waits for the connection to end
//! (`door`); `hello` holds the words both sides speak; `socket` where the
//! window's and the gate's sockets are and the checks a client makes before
//! it sends anything.
//!
//! It is the lowest floor and names nothing of Rootgate's: its program
//! (`rootgate-door`, which `rootgate connect` becomes when it is beside)
//! links only the standard library, serde and the system calls, so that
//! each app session costs a few pages. The gate, which speaks MCP and
//! decides everything, is the bridge's (`rootgate_bridge::gate`).
//!
//! What is not here: anything a connection decides, any runtime.

pub mod door;
pub mod hello;
pub mod socket;
