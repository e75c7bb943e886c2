//! The handshake of one server life: Rootgate's own `initialize` (rmcp's
//! client, with roots declared) or, for a bridge, the AI app's `initialize`
//! relayed; commands that arrive meanwhile are answered, and `Running` is
//! published when it completes. Failures are said in words.
//!
//! What is not here: starting the process and ending the life
//! (`connection`), and the running phase (`serve`).

use super::*;
use crate::servers::Era;
use crate::session::era::{self, Found};
use crate::session::protocol::RootsTransport;
use crate::session::wire::Frame;
use rmcp::model::ProtocolVersion;
use rmcp::transport::Transport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};

impl Actor {
    /// Does the `initialize` handshake, answering commands meanwhile, and
    /// publishes `Running`: as Rootgate's own client, or for the AI app a
    /// bridge relays.
    pub(super) async fn handshake(
        &mut self,
        conn: &mut Connection,
        spec: &ServerSpec,
    ) -> Result<(), Ending> {
        let Some((stdout, stdin)) = conn.io.take() else {
            return Err(Ending::NoHandshake(
                "the server's pipes were already taken".into(),
            ));
        };
        let answered = match self.relay.clone() {
            Some(relay) => {
                self.relayed_handshake(conn, spec, relay, stdout, stdin)
                    .await?
            }
            None => self.own_handshake(conn, spec, stdout, stdin).await?,
        };
        conn.started = true;
        conn.era = answered.era;
        let spoken = match answered.era {
            Era::Legacy => SUPPORTED_VERSIONS.contains(&answered.protocol_version.as_str()),
            Era::Modern => answered.protocol_version == era::MODERN_VERSION,
        };
        if !spoken {
            return Err(Ending::Unsupported(answered.protocol_version));
        }
        if let Some(LinkKind::Relay { relay, life, .. }) = conn.link.as_ref().map(|l| &l.kind) {
            relay.ready(*life, *life > 1).await;
        }
        self.record(Event::Initialized {
            protocol_version: answered.protocol_version.clone(),
            server_name: answered.server_name.clone(),
            server_version: answered.server_version.clone(),
        });
        self.status.send_replace(Status::Running(RunningInfo {
            pid: conn.pid,
            era: answered.era,
            protocol_version: answered.protocol_version,
            server_name: answered.server_name,
            server_version: answered.server_version,
            capabilities: answered.capabilities,
        }));
        Ok(())
    }

    /// A command that came while the server was starting: whether it ends
    /// the start, and how.
    pub(super) fn command_while_starting(
        &mut self,
        command: Option<Command>,
        spec: &ServerSpec,
    ) -> Option<Ending> {
        match command {
            Some(Command::Peer(reply)) => {
                let _ = reply.send(None);
                None
            }
            Some(Command::Start(_)) => None,
            Some(Command::Forget) => {
                self.forget();
                None
            }
            Some(Command::Restart(new)) => {
                let new = new.unwrap_or_else(|| spec.clone());
                self.adopt(&new);
                Some(Ending::Restart(new))
            }
            Some(Command::Stop(done)) => Some(Ending::Stop(done)),
            Some(Command::Shutdown(done)) => Some(Ending::Quit(Some(done))),
            None => Some(Ending::Quit(None)),
        }
    }

    pub(super) fn no_answer(&self, era: Era) -> Ending {
        Ending::NoHandshake(format!(
            "the server did not answer `{}` within {}; it may not be an MCP server, or \
             it may be waiting for input of another kind",
            first_request(era),
            seconds(self.config.init_timeout)
        ))
    }

    /// Waits for the probe's answer within the session's discover timeout,
    /// serving commands meanwhile: silence means legacy. A server that ends
    /// instead of answering is one of those that end on any request before
    /// `initialize` (the TypeScript SDK's client names them too): it is
    /// started again, held to the legacy era.
    async fn await_probe(
        &mut self,
        answer: impl Future<Output = Option<Found>>,
        spec: &ServerSpec,
    ) -> Result<Found, Ending> {
        tokio::pin!(answer);
        let deadline = tokio::time::sleep(self.config.discover_timeout);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                found = &mut answer => return match found {
                    Some(found) => Ok(found),
                    None => {
                        self.record(Event::EraFound {
                            era: Era::Legacy,
                            how: "it ended when asked server/discover, as servers do that end on \
                                  any request before initialize; it is started again with \
                                  initialize"
                                .into(),
                        });
                        let mut again = spec.clone();
                        again.seen_era = Some(Era::Legacy);
                        Err(Ending::ClosedOnProbe(again))
                    }
                },
                _ = &mut deadline => return Ok(Found {
                    era: Era::Legacy,
                    how: format!(
                        "it did not answer server/discover within {}, so Rootgate uses initialize",
                        seconds(self.config.discover_timeout)
                    ),
                }),
                command = self.commands.recv() => {
                    if let Some(ending) = self.command_while_starting(command, spec) {
                        return Err(ending);
                    }
                }
            }
        }
    }

    /// The era to start `spec` in: known (set, or found before), or
    /// probed now with `probe`; recorded either way.
    async fn settle_era(
        &mut self,
        spec: &ServerSpec,
        probe: impl Future<Output = Option<Found>>,
    ) -> Result<Era, Ending> {
        let found = match (spec.era.forced(), spec.seen_era) {
            (Some(era), _) => Found {
                era,
                how: "set on this server, so it was not asked".into(),
            },
            (None, Some(era)) => Found {
                era,
                how: "found when it last started, so it was not asked again".into(),
            },
            (None, None) => self.await_probe(probe, spec).await?,
        };
        let era = found.era;
        self.record(Event::EraFound {
            era,
            how: found.how,
        });
        Ok(era)
    }

    /// The handshake as Rootgate's own client, on rmcp: in the era the
    /// person chose or an earlier probe found, else in the era a probe finds
    /// now.
    pub(super) async fn own_handshake(
        &mut self,
        conn: &mut Connection,
        spec: &ServerSpec,
        stdout: DrainOnDrop,
        stdin: ChildStdin,
    ) -> Result<Answered, Ending> {
        let handler = RootsClient::new(self.roots.clone(), conn.events_tx.clone())
            .with_notices(self.notices.clone())
            .counting_answers(std::sync::Arc::clone(&self.answered));
        // `roots/list` is answered, and answers reported as they are
        // written, by this transport's wire (see `wire`).
        let (mut transport, wire) = handler.transport(stdout, stdin);
        conn.wire = Some(wire);
        // The probe goes through rmcp's transport, which passes its answer
        // up only while it waits (see `RootsTransport`).
        let era = self
            .settle_era(spec, async {
                transport.start_probe().await;
                read_transport_answer(&mut transport).await
            })
            .await;
        transport.end_probe();
        let era = era?;
        let lifecycle = match era {
            Era::Legacy => ClientLifecycleMode::Initialize,
            Era::Modern => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        };
        let handler = match era {
            Era::Legacy => handler,
            Era::Modern => handler.modern(),
        };
        let mut init = Box::pin(handler.serve_with_lifecycle(transport, lifecycle));
        let deadline = tokio::time::sleep(self.config.init_timeout);
        tokio::pin!(deadline);
        let running = loop {
            tokio::select! {
                result = &mut init => match result {
                    Ok(running) => break running,
                    Err(e) => return Err(handshake_ending(&e, era)),
                },
                _ = &mut deadline => return Err(self.no_answer(era)),
                command = self.commands.recv() => {
                    if let Some(ending) = self.command_while_starting(command, spec) {
                        return Err(ending);
                    }
                }
            }
        };
        let peer = running.peer().clone();
        let info = peer.peer_info();
        let cancel = running.cancellation_token();
        let (ended_tx, ended) = watch::channel(false);
        tokio::spawn(async move {
            let _ = running.waiting().await;
            let _ = ended_tx.send(true);
        });
        conn.link = Some(Link {
            kind: LinkKind::Own { peer, cancel },
            ended,
        });
        let (server_name, server_version) = info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map(|s| (s.name.clone(), s.version.clone()))
            .unwrap_or_default();
        Ok(Answered {
            era,
            protocol_version: info
                .as_ref()
                .map(|i| i.protocol_version.to_string())
                .unwrap_or_default(),
            server_name,
            server_version,
            capabilities: info
                .as_ref()
                .and_then(|i| serde_json::to_value(&i.capabilities).ok())
                .unwrap_or_default(),
        })
    }

    /// The handshake a bridge relays: the AI app's `initialize` (with
    /// Rootgate's roots declared), whose answer goes to the app; after a
    /// restart, the same again, answered inside the bridge. The time allowed
    /// runs from when the app's `initialize` is there.
    pub(super) async fn relayed_handshake(
        &mut self,
        conn: &mut Connection,
        spec: &ServerSpec,
        relay: Arc<Relay>,
        stdout: DrainOnDrop,
        stdin: ChildStdin,
    ) -> Result<Answered, Ending> {
        // An AI app's results can be large (a file read, a search): a pipe
        // of a few hundred kilobytes carries them in few wake-ups.
        process::grow_stdout_pipe(&stdout, RELAYED_STDOUT_PIPE);
        let wire = Wire::start(
            stdin,
            self.roots.clone(),
            conn.events_tx.clone(),
            std::sync::Arc::clone(&self.answered),
            QUEUE_FRAMES,
        );
        let mut stdout = stdout;
        if spec.known_era().is_none() {
            // A failed send means the server is gone; the read then ends.
            let _ = wire.frames.send(Frame::Lines(era::probe_line())).await;
        }
        let era = self
            .settle_era(spec, read_probe_answer(&mut stdout))
            .await?;
        conn.era = era;
        let mut attached = relay.attach(stdout, &wire, era, self.roots.clone());
        conn.wire = Some(wire);
        let mut ended = attached.ended.clone();
        let mut seen = relay.subscribe();
        let mut app_arrived = seen.borrow().app.is_some();
        conn.link = Some(Link {
            kind: LinkKind::Relay {
                relay,
                life: attached.life,
                reader: attached.reader,
            },
            ended: attached.ended,
        });
        let deadline = tokio::time::sleep(self.config.init_timeout);
        tokio::pin!(deadline);
        let closed = || Ending::ClosedBeforeAnswer("initialize");
        let result = loop {
            tokio::select! {
                result = &mut attached.initialized => match result {
                    Ok(Ok(result)) => break result,
                    Ok(Err(e)) => return Err(Ending::NoHandshake(format!(
                        "the server refused `initialize` ({e})"
                    ))),
                    Err(_) => return Err(closed()),
                },
                _ = &mut deadline, if app_arrived => return Err(self.no_answer(Era::Legacy)),
                changed = seen.changed(), if !app_arrived => {
                    if changed.is_err() {
                        return Err(Ending::Quit(None));
                    }
                    if seen.borrow_and_update().app.is_some() {
                        app_arrived = true;
                        deadline.as_mut().reset(tokio::time::Instant::now() + self.config.init_timeout);
                    }
                }
                _ = ended.wait_for(|ended| *ended) => return Err(closed()),
                command = self.commands.recv() => {
                    if let Some(ending) = self.command_while_starting(command, spec) {
                        return Err(ending);
                    }
                }
            }
        };
        let era = conn.era;
        let text = |v: Option<&serde_json::Value>| {
            v.and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let info = result.get("serverInfo");
        Ok(Answered {
            era,
            protocol_version: text(result.get("protocolVersion")),
            server_name: text(info.and_then(|i| i.get("name"))),
            server_version: text(info.and_then(|i| i.get("version"))),
            capabilities: result.get("capabilities").cloned().unwrap_or_default(),
        })
    }
}

/// Reads the transport's messages until one answers the probe, and
/// classifies it; `None` if the server's output ends first. Anything else a
/// server sends before it answers (a log line) is not about the era.
async fn read_transport_answer(transport: &mut RootsTransport<DrainOnDrop>) -> Option<Found> {
    loop {
        let message = serde_json::to_value(transport.receive().await?).unwrap_or_default();
        if era::answers_probe(&message) {
            return Some(era::classify(&message));
        }
    }
}

/// A bridged server's answer to the probe, read before the relay reads its
/// output: a byte at a time and bounded, so that nothing after the answer is
/// taken from the relay; `None` if its output ends first.
async fn read_probe_answer(stdout: &mut DrainOnDrop) -> Option<Found> {
    use tokio::io::AsyncReadExt;
    const MAX_PROBE_LINE: usize = 1024 * 1024;
    let mut line = Vec::new();
    loop {
        let byte = stdout.read_u8().await.ok()?;
        if byte != b'\n' {
            if line.len() < MAX_PROBE_LINE {
                line.push(byte);
            }
            continue;
        }
        if let Ok(message) = serde_json::from_slice::<serde_json::Value>(&line)
            && era::answers_probe(&message)
        {
            return Some(era::classify(&message));
        }
        line.clear();
    }
}

/// How a handshake that failed ends the server's life: a closed connection
/// is its own ending (it reads differently when the process simply exited),
/// anything else a reason in words.
fn handshake_ending(e: &ClientInitializeError, era: Era) -> Ending {
    match e {
        ClientInitializeError::ConnectionClosed(_)
        | ClientInitializeError::TransportError { .. } => {
            Ending::ClosedBeforeAnswer(first_request(era))
        }
        other => Ending::NoHandshake(handshake_failure(other, era)),
    }
}

/// Why the `initialize` handshake failed, in words a person can act on.
/// rmcp's own messages name Rust types and transport internals ("Send
/// message error Transport [rmcp::transport::async_rw::AsyncRwTransport<…>]
/// error: Broken pipe"), and which of them a server that exits at once
/// causes depends on a race; to a person both mean the same thing.
fn handshake_failure(e: &ClientInitializeError, era: Era) -> String {
    let first = first_request(era);
    match e {
        ClientInitializeError::ConnectionClosed(_)
        | ClientInitializeError::TransportError { .. } => {
            format!("the server closed its connection before answering `{first}`")
        }
        ClientInitializeError::JsonRpcError(error) => format!(
            "the server refused `{first}` with JSON-RPC error {}: \"{}\"",
            error.code.0, error.message
        ),
        ClientInitializeError::ConflictInitResponseId(_, got)
        | ClientInitializeError::UncorrelatedErrorResponse { received: got, .. } => format!(
            "the server answered a request Rootgate never made (id {got}) instead of `{first}`"
        ),
        ClientInitializeError::ExpectedInitResponse(_)
        | ClientInitializeError::ExpectedInitResult(_) => {
            format!("the server answered `{first}` with something that is not its result")
        }
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => format!(
            "the server speaks only protocol versions {}, and Rootgate speaks {} and the \
             `initialize` versions",
            server_supported
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            era::MODERN_VERSION
        ),
        other => format!("the MCP handshake failed ({other})"),
    }
}

/// The request that opens a life of the server in `era`.
fn first_request(era: Era) -> &'static str {
    match era {
        Era::Legacy => "initialize",
        Era::Modern => "server/discover",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handshake_failures_are_said_without_rust_internals() {
        let closed = handshake_failure(
            &ClientInitializeError::ConnectionClosed("initialize response".into()),
            Era::Legacy,
        );
        assert_eq!(
            closed,
            "the server closed its connection before answering `initialize`"
        );
        let refused = handshake_failure(
            &ClientInitializeError::JsonRpcError(rmcp::model::ErrorData::invalid_params(
                "unsupported client",
                None,
            )),
            Era::Legacy,
        );
        assert!(refused.contains("refused `initialize`"), "{refused}");
        assert!(refused.contains("-32602"), "{refused}");
        assert!(refused.contains("unsupported client"), "{refused}");
    }
}
