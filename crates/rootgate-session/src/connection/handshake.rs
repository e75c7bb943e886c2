//! The handshake of one server life: Rootgate's own `initialize` (rmcp's
//! client, with roots declared) or, for a bridge, the AI app's `initialize`
//! relayed; commands that arrive meanwhile are answered, and `Running` is
//! published when it completes. Failures are said in words. A server whose
//! era is not known is opened with `initialize`, and one that refuses it is
//! started again in the modern era (see `era` for why).
//!
//! What is not here: starting the process and ending the life
//! (`connection`), and the running phase (`serve`).

use super::*;
use crate::era;
use rmcp::model::ProtocolVersion;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use rootgate_model::servers::Era;
use serde_json::Value;

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

    /// The era to start `spec` in, when the person set it or an earlier
    /// start found it (recorded now); `None` when it is not known, and the
    /// handshake opens with `initialize` to find out (see `era`).
    fn known_era(&mut self, spec: &ServerSpec) -> Option<Era> {
        let found = match (spec.era.forced(), spec.seen_era) {
            (Some(era), _) => era::known(era, true),
            (None, Some(era)) => era::known(era, false),
            (None, None) => return None,
        };
        let era = found.era;
        self.record(Event::EraFound {
            era,
            how: found.how,
        });
        Some(era)
    }

    /// A server whose era was not known accepted `initialize`: it is
    /// spoken to in the legacy era, recorded with why.
    fn accepted_initialize(&mut self, version: &str) {
        let found = era::accepted(version);
        self.record(Event::EraFound {
            era: found.era,
            how: found.how,
        });
    }

    /// A server whose era was not known refused `initialize` (with `error`,
    /// when it was a JSON-RPC error): it is started again held to the
    /// modern era, recorded with why.
    fn refused_initialize(&mut self, spec: &ServerSpec, error: Option<&Value>) -> Ending {
        let found = era::refused(error);
        self.record(Event::EraFound {
            era: found.era,
            how: found.how,
        });
        let mut again = spec.clone();
        again.seen_era = Some(found.era);
        Ending::AgainInEra(again)
    }

    /// The handshake as Rootgate's own client, on rmcp: in the era the
    /// person chose or an earlier start found, else with `initialize`, and
    /// in the modern era at the next start if it is refused.
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
        let (transport, wire) = handler.transport(stdout, stdin);
        conn.wire = Some(wire);
        let known = self.known_era(spec);
        let era = known.unwrap_or(Era::Legacy);
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
                    Err(ClientInitializeError::JsonRpcError(error)) if known.is_none() => {
                        let error = serde_json::to_value(&error).ok();
                        return Err(self.refused_initialize(spec, error.as_ref()));
                    }
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
        if known.is_none() {
            let version = info
                .as_ref()
                .map(|i| i.protocol_version.to_string())
                .unwrap_or_default();
            self.accepted_initialize(&version);
        }
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
        Ok(answered_by(era, info.as_deref()))
    }

    /// The handshake a bridge relays: the AI app's `initialize` (with
    /// Rootgate's roots declared), whose answer goes to the app; after a
    /// restart, the same again, answered inside the bridge. The time allowed
    /// runs from when the app's `initialize` is there.
    pub(super) async fn relayed_handshake(
        &mut self,
        conn: &mut Connection,
        spec: &ServerSpec,
        relay: Arc<dyn AppSide>,
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
        let known = self.known_era(spec);
        let era = known.unwrap_or(Era::Legacy);
        conn.era = era;
        // A guessed era's refused opening is kept for the next life, where
        // the server is spoken to in the modern era (see `era`).
        relay.guess_era(known.is_none());
        let mut attached = Arc::clone(&relay).attach(stdout, &wire, era, self.roots.clone());
        conn.wire = Some(wire);
        let mut ended = attached.ended.clone();
        let mut app_arrived = relay.app_arrived();
        let mut arrival = relay.app_arrival();
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
                    Ok(Err(e)) if known.is_none() => {
                        let error = era::error_from_outcome(&e);
                        return Err(self.refused_initialize(spec, error.as_ref()));
                    }
                    Ok(Err(e)) => return Err(Ending::NoHandshake(format!(
                        "the server refused `initialize` ({e})"
                    ))),
                    Err(_) => return Err(closed()),
                },
                _ = &mut deadline, if app_arrived => return Err(self.no_answer(Era::Legacy)),
                arrived = &mut arrival, if !app_arrived => {
                    if !arrived {
                        return Err(Ending::Quit(None));
                    }
                    app_arrived = true;
                    deadline.as_mut().reset(tokio::time::Instant::now() + self.config.init_timeout);
                }
                _ = ended.wait_for(|ended| *ended) => return Err(closed()),
                command = self.commands.recv() => {
                    if let Some(ending) = self.command_while_starting(command, spec) {
                        return Err(ending);
                    }
                }
            }
        };
        if known.is_none() {
            self.accepted_initialize(&text(result.get("protocolVersion")));
        }
        Ok(answered_in(conn.era, &result))
    }
}

/// What an answer to `initialize` said, read by Rootgate's own client.
fn answered_by(era: Era, info: Option<&rmcp::model::ServerPeerInfo>) -> Answered {
    let (server_name, server_version) = info
        .and_then(|i| i.server_info.as_ref())
        .map(|s| (s.name.clone(), s.version.clone()))
        .unwrap_or_default();
    Answered {
        era,
        protocol_version: info
            .map(|i| i.protocol_version.to_string())
            .unwrap_or_default(),
        server_name,
        server_version,
        capabilities: info
            .and_then(|i| serde_json::to_value(&i.capabilities).ok())
            .unwrap_or_default(),
    }
}

/// A text member of an answer; empty when it is missing or not text.
fn text(v: Option<&Value>) -> String {
    v.and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// What an answer to `initialize` said, read from the relayed `result`.
fn answered_in(era: Era, result: &Value) -> Answered {
    let info = result.get("serverInfo");
    Answered {
        era,
        protocol_version: text(result.get("protocolVersion")),
        server_name: text(info.and_then(|i| i.get("name"))),
        server_version: text(info.and_then(|i| i.get("version"))),
        capabilities: result.get("capabilities").cloned().unwrap_or_default(),
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
