//! The server's side of the router: its requests, notifications and
//! answers, what the app is told when the server goes, and the lines the
//! bridge sends of its own when a restarted server must be brought back to
//! where the app left it. It holds no state of its own and writes nothing.

use super::modern_app::typed_result;
use super::*;

impl Router {
    /// The `initialize` to send the server: the app's, with roots declared
    /// as Rootgate's (`listChanged: true`) and the app's own id kept aside,
    /// or, after a restart, the same as a request of the bridge's own.
    /// `None` until the app's `initialize` arrived.
    pub fn initialize_for_server(&mut self) -> Option<Vec<u8>> {
        if self.modern() {
            return self.discover_for_server();
        }
        let Init::Received { app_id, params } = &mut self.init else {
            return None;
        };
        let mut params = params.clone();
        let capabilities = params
            .entry("capabilities")
            .or_insert_with(|| Value::Object(Map::new()));
        if !capabilities.is_object() {
            *capabilities = Value::Object(Map::new());
        }
        if let Value::Object(caps) = capabilities {
            caps.insert("roots".into(), json!({"listChanged": true}));
        }
        let app_id = app_id.take();
        let ours = self.opening(app_id);
        let params = Value::Object(params).to_string();
        let raw = RawValue::from_string(params).ok()?;
        Some(request_line(
            &ours.to_string(),
            "initialize",
            Some(Raw::from(&*raw)),
        ))
    }

    /// For a modern server, the `server/discover` that stands for the
    /// app's `initialize` (see `modern`).
    fn discover_for_server(&mut self) -> Option<Vec<u8>> {
        let Init::Received { app_id, .. } = &mut self.init else {
            return None;
        };
        let app_id = app_id.take();
        let ours = self.opening(app_id);
        Some(self.discover_line(ours))
    }

    /// Registers the opening of a server life under a new id: the first
    /// answers the app's opening request (or nobody, for a modern app that
    /// opened with a request); later ones are the bridge's own replays.
    fn opening(&mut self, app_id: Option<Box<str>>) -> u64 {
        let purpose = match app_id {
            Some(app_id) => ToServer::FirstInitialize { app_id },
            None if std::mem::take(&mut self.implicit_open) => ToServer::ImplicitOpen,
            None => ToServer::ReplayInitialize,
        };
        let ours = self.next_server_id;
        self.next_server_id += 1;
        self.to_server.insert(ours, purpose);
        ours
    }

    /// What a restarted server is told after its `initialize`: that the
    /// client is initialized, the logging level, and the subscriptions. A
    /// modern server has no handshake to finish and gets the logging level
    /// with every request.
    pub fn replay(&mut self) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        if !self.modern() {
            lines.push(notification_line("notifications/initialized", &Value::Null));
            if let Some(level) = self.log_level.clone() {
                lines.push(self.own_request("logging/setLevel", Some(Raw::from(&*level))));
            }
        }
        for uri in self.subscriptions.kept() {
            let params = json!({"uri": uri}).to_string();
            if let Ok(raw) = RawValue::from_string(params) {
                lines.push(self.own_request("resources/subscribe", Some(Raw::from(&*raw))));
            }
        }
        lines
    }

    pub(super) fn own_request(&mut self, method: &str, params: Option<Raw<'_>>) -> Vec<u8> {
        let ours = self.next_server_id;
        self.next_server_id += 1;
        self.to_server.insert(ours, ToServer::Own);
        request_line(&ours.to_string(), method, params)
    }

    pub(super) fn server_request(
        &mut self,
        method: &str,
        id: Raw<'_>,
        params: Option<Raw<'_>>,
    ) -> Vec<Out> {
        let id_text = id.get();
        let declared = match method {
            "roots/list" => return vec![Out::RootsList(id_text.into())],
            "ping" => return vec![Out::Server(result_line(id_text, "{}"))],
            // A modern app takes no requests from a server: the era has
            // none (a modern server asks inside its results instead).
            "sampling/createMessage" => self.app.capabilities.sampling && !self.app_modern,
            "elicitation/create" => self.app.capabilities.elicitation && !self.app_modern,
            _ => true,
        };
        if !declared {
            return vec![
                Out::Server(error_line(
                    id_text,
                    -32601,
                    &format!("Method not found: {method} (the client did not declare it)"),
                )),
                Out::Refused(method.to_owned()),
            ];
        }
        if self.server_ids.contains_key(id_text) {
            return vec![Out::Server(error_line(
                id_text,
                -32600,
                "a request with this id is still in flight; use a new id",
            ))];
        }
        let ours = self.next_app_id;
        self.next_app_id += 1;
        self.to_app.insert(
            ours,
            ToApp::Server {
                server_id: id_text.into(),
            },
        );
        self.server_ids.insert(id_text.into(), ours);
        vec![Out::App(request_line(&ours.to_string(), method, params))]
    }

    pub(super) fn server_notification(
        &mut self,
        method: &str,
        params: Option<Raw<'_>>,
        line: &[u8],
    ) -> Vec<Out> {
        if method != "notifications/cancelled" {
            return vec![Out::App(with_newline(line))];
        }
        let Some((mut params, request)) = cancelled_request(params) else {
            return vec![Out::Note(
                "a cancellation without a requestId was dropped".into(),
            )];
        };
        let Some(ours) = self.server_ids.remove(request.as_str()) else {
            return vec![Out::Note(format!(
                "the server cancelled request {request}, which the app was not asked; dropped"
            ))];
        };
        self.to_app.remove(&ours);
        params.insert("requestId".into(), json!(ours));
        vec![Out::App(notification_line(
            "notifications/cancelled",
            &Value::Object(params),
        ))]
    }

    pub(super) fn server_response(
        &mut self,
        id: Raw<'_>,
        result: Option<Raw<'_>>,
        error: Option<Raw<'_>>,
        now: Instant,
    ) -> Vec<Out> {
        let ours = match answered_id("the server", id) {
            Ok(ours) => ours,
            Err(dropped) => return dropped,
        };
        if let Some(held) = self.hold_refused_opening(ours, result, error) {
            return held;
        }
        // A subscription is kept once the server accepted it.
        self.subscriptions
            .answered(ours, error.is_none() && result.is_some());
        match self.to_server.remove(&ours) {
            Some(ToServer::App(pending)) => self.app_answered(pending, result, error, now),
            Some(ToServer::FirstInitialize { app_id }) if self.app_modern => {
                self.first_answer_for_modern_app(Some(&app_id), result, error)
            }
            Some(ToServer::ImplicitOpen) => {
                let mut out = self.first_answer_for_modern_app(None, result, error);
                out.extend(self.release_deferred(&out, now));
                out
            }
            Some(ToServer::FirstInitialize { app_id }) if self.modern() => {
                self.modern_initialized(&app_id, result, error)
            }
            Some(ToServer::FirstInitialize { app_id }) => {
                let parsed = initialize_outcome(result, error);
                vec![
                    Out::App(response_line(&app_id, result, error)),
                    Out::ServerInitialized(parsed),
                ]
            }
            Some(ToServer::ReplayInitialize) => {
                let parsed = initialize_outcome(result, error);
                let parsed = match parsed {
                    Ok(discovered) if self.modern() => Ok(self.discovered(&discovered).1),
                    other => other,
                };
                vec![Out::ServerInitialized(parsed)]
            }
            Some(ToServer::Own) => Vec::new(),
            None => never_sent("the server", ours),
        }
    }

    /// The server answered an app's request: the answer goes to the app
    /// under its own id (typed for a modern app, without hidden tools),
    /// unless it was an input round the bridge answers itself.
    fn app_answered(
        &mut self,
        pending: Pending,
        result: Option<Raw<'_>>,
        error: Option<Raw<'_>>,
        now: Instant,
    ) -> Vec<Out> {
        let mut pending = match self.input_round(pending, result, now) {
            Ok(round) => return round,
            Err(pending) => pending,
        };
        self.app_ids.remove(&pending.app_id);
        // A modern app wants every result typed; a legacy server
        // types none.
        let typed = match result {
            Some(result) if self.app_modern && !self.modern() => {
                Some(typed_result(result, &pending.method))
            }
            _ => None,
        };
        let result = typed.as_deref().map(Raw::from).or(result);
        // The tools hidden from the app are not in its list; what
        // the list showed is kept, to notice a changed tool.
        let (kept, seen) = self.listed_tools(&pending.method, result);
        let result = kept.as_deref().map(Raw::from).or(result);
        let line = response_line(&pending.app_id, result, error);
        pending.bytes_out = line.len() as u64;
        let mut out = vec![Out::App(line), pending.ended(now, outcome(error))];
        out.extend(seen);
        out
    }

    /// A modern server answered the legacy app's `initialize`: the app is
    /// given the answer as a legacy server would give it, and the session
    /// what the server said of itself.
    fn modern_initialized(
        &mut self,
        app_id: &str,
        result: Option<Raw<'_>>,
        error: Option<Raw<'_>>,
    ) -> Vec<Out> {
        match initialize_outcome(result, error) {
            Ok(discovered) => {
                let (for_app, for_session) = self.discovered(&discovered);
                vec![
                    Out::App(result_line(app_id, &for_app.to_string())),
                    Out::ServerInitialized(Ok(for_session)),
                ]
            }
            Err(why) => vec![
                Out::App(response_line(app_id, result, error)),
                Out::ServerInitialized(Err(why)),
            ],
        }
    }

    /// The server is gone: every app request waiting for it gets an error
    /// now (none would be answered), and requests it had passed on to the
    /// app are forgotten.
    pub fn server_gone(&mut self, why: &str, now: Instant) -> Vec<Out> {
        let mut out = Vec::new();
        self.subscriptions.server_gone();
        self.resend.clear();
        let mut waiting: Vec<(u64, ToServer)> = self.to_server.drain().collect();
        waiting.sort_by_key(|(ours, _)| *ours);
        for (_, pending) in waiting {
            match pending {
                ToServer::App(pending) => {
                    out.extend(pending.failed(now, why));
                }
                ToServer::FirstInitialize { app_id } => {
                    out.push(Out::App(error_line(&app_id, -32603, why)));
                }
                ToServer::ReplayInitialize | ToServer::ImplicitOpen | ToServer::Own => {}
            }
        }
        // Calls waiting in a round for the app's answers cannot be sent
        // again to a server that is gone.
        let mut rounds: Vec<(u64, modern::Round)> = self.rounds.drain().collect();
        rounds.sort_by_key(|(id, _)| *id);
        for (_, round) in rounds {
            let pending = round.pending;
            out.extend(pending.failed(now, why));
        }
        self.app_ids.clear();
        self.to_app
            .retain(|_, pending| matches!(pending, ToApp::Roots));
        self.server_ids.clear();
        out
    }

    /// A request written under the bridge's id `ours` that will not be
    /// sent after all (see the relay's fence): the app gets `why` as its
    /// error, and the call is recorded. Nothing for any other id.
    pub(crate) fn withhold(&mut self, ours: u64, why: &str, now: Instant) -> Vec<Out> {
        match self.to_server.remove(&ours) {
            Some(ToServer::App(pending)) => {
                self.app_ids.remove(&pending.app_id);
                self.subscriptions.forget(ours);
                pending.failed(now, why).into()
            }
            Some(other) => {
                self.to_server.insert(ours, other);
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    /// An error answer to the app's `initialize`, when the server cannot
    /// be reached at all (unknown, not approved, failed to start). `None`
    /// while the app's `initialize` has not arrived; `Some(None)` when it
    /// was passed on already (its answer, or the error of a server gone,
    /// reached the app).
    pub(crate) fn refuse_initialize(&mut self, code: i64, why: &str) -> Option<Option<Vec<u8>>> {
        match &mut self.init {
            Init::Received { app_id, .. } => {
                Some(app_id.take().map(|id| error_line(&id, code, why)))
            }
            Init::Waiting => None,
        }
    }
}
