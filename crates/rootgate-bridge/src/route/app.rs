//! The app's side of the router: its requests, notifications and answers
//! to the bridge's requests, each turned into what to write where. It holds
//! no state of its own (that is the `Router`'s) and writes nothing.

use super::*;

impl Router {
    pub(super) fn app_request(
        &mut self,
        method: &str,
        id: Raw<'_>,
        params: Option<Raw<'_>>,
        now: Instant,
    ) -> Vec<Out> {
        let id_text = id.get();
        // A modern app need not open with `server/discover`: a first
        // request with the envelope opens the connection, then goes on.
        if matches!(self.init, Init::Waiting)
            && !matches!(method, "initialize" | "ping" | "server/discover")
            && let Some(opened) = self.implicit_modern_open(params)
        {
            // Held until the server is open: how it is translated depends on
            // the server's era, which is not known yet.
            self.deferred = Some((
                id.to_owned_raw(),
                method.to_owned(),
                params.map(|p| p.to_owned_raw()),
            ));
            return vec![opened];
        }
        match (&self.init, method) {
            (Init::Waiting, "initialize") => {
                let params = params
                    .and_then(|p| serde_json::from_str::<Map<String, Value>>(p.get()).ok())
                    .unwrap_or_default();
                self.app = app_info(&params);
                self.init = Init::Received {
                    app_id: Some(id_text.into()),
                    params,
                };
                return vec![Out::AppInitialized];
            }
            (Init::Waiting, "ping") => return vec![Out::App(result_line(id_text, "{}"))],
            (Init::Waiting, "server/discover") => return self.app_discover(id_text, params),
            (Init::Waiting, _) => {
                return vec![Out::App(error_line(
                    id_text,
                    -32600,
                    "the connection is not initialized yet: send initialize first",
                ))];
            }
            (Init::Received { .. }, "initialize") => {
                return vec![Out::App(error_line(
                    id_text,
                    -32600,
                    "initialize was already received on this connection",
                ))];
            }
            _ => {}
        }
        if self.app_ids.contains_key(id_text) || self.is_parked(id_text) {
            return vec![Out::App(error_line(
                id_text,
                -32600,
                "a request with this id is still in flight; use a new id",
            ))];
        }
        if self.app_ids.len() >= MAX_IN_FLIGHT {
            return vec![Out::App(error_line(
                id_text,
                -32000,
                &format!(
                    "too many requests in flight ({MAX_IN_FLIGHT}); wait for some to be answered"
                ),
            ))];
        }
        if let Some(judged) = self.judge_call(method, id, params, now) {
            return judged;
        }
        self.forward(method, id_text, params, now)
    }

    /// An app request the bridge lets through, in the server's era.
    pub(super) fn forward(
        &mut self,
        method: &str,
        id_text: &str,
        params: Option<Raw<'_>>,
        now: Instant,
    ) -> Vec<Out> {
        if let Some(refused) = self.subscription_refused(method, id_text, params) {
            return refused;
        }
        if self.app_modern
            && let Some(out) = self.modern_app_request(method, id_text, params, now)
        {
            return out;
        }
        if self.modern() {
            return self.modern_request(method, id_text, params, now);
        }
        self.legacy_request(method, id_text, params, now)
    }

    /// An app request to a legacy server, under an id of the bridge's.
    pub(super) fn legacy_request(
        &mut self,
        method: &str,
        id_text: &str,
        params: Option<Raw<'_>>,
        now: Instant,
    ) -> Vec<Out> {
        self.remember_for_replay(method, params);
        let ours = self.next_server_id;
        self.next_server_id += 1;
        self.subscription_sent(ours, method, params);
        let target = target_of(method, params);
        if self.hold_armed && depends_on_folders(method) {
            self.hold = Some(match &target {
                Some(target) => format!("{method} “{target}”"),
                None => method.to_owned(),
            });
        }
        let line = request_line(&ours.to_string(), method, params);
        self.routed_for_server(ours, method, target.as_deref(), &line);
        self.to_server.insert(
            ours,
            ToServer::App(Pending {
                app_id: id_text.into(),
                method: method.to_owned(),
                target,
                started: now,
                retry: None,
                consent: self.next_consent.take().map(String::into_boxed_str),
                bytes_in: self.in_bytes,
                bytes_out: 0,
            }),
        );
        self.app_ids.insert(id_text.into(), ours);
        vec![Out::Server(line)]
    }

    /// Keeps what a restarted server must be told again: the logging
    /// level as asked (subscriptions wait for the server's answer, see
    /// `subscription_sent`).
    pub(super) fn remember_for_replay(&mut self, method: &str, params: Option<Raw<'_>>) {
        if method == "logging/setLevel" {
            self.log_level = params.map(|p| p.to_owned_raw());
        }
    }

    /// The app's subscribe refused before it is sent, when the bridge
    /// keeps as many subscriptions as it may.
    fn subscription_refused(
        &mut self,
        method: &str,
        id_text: &str,
        params: Option<Raw<'_>>,
    ) -> Option<Vec<Out>> {
        if method != "resources/subscribe" {
            return None;
        }
        let why = self
            .subscriptions
            .room_for(&subscribed_uri(params)?)
            .err()?;
        Some(vec![
            Out::App(error_line(id_text, -32000, &why)),
            Out::Note(format!("the app's resources/subscribe was refused: {why}")),
        ])
    }

    /// A subscribe or unsubscribe sent under the bridge's id `ours`, to
    /// be kept or forgotten once the server accepts it.
    pub(super) fn subscription_sent(&mut self, ours: u64, method: &str, params: Option<Raw<'_>>) {
        let subscribe = match method {
            "resources/subscribe" => true,
            "resources/unsubscribe" => false,
            _ => return,
        };
        if let Some(uri) = subscribed_uri(params) {
            self.subscriptions.sent(ours, subscribe, uri);
        }
    }

    pub(super) fn app_notification(
        &mut self,
        method: &str,
        params: Option<Raw<'_>>,
        line: &[u8],
        now: Instant,
    ) -> Vec<Out> {
        match method {
            // The app's own roots are never the server's: they are asked for,
            // as suggestions, when the app says they changed.
            "notifications/roots/list_changed" => self.ask_app_roots().into_iter().collect(),
            // Only the bridge initializes the server, with Rootgate's roots;
            // an `initialize` without an id is no request, and must not
            // reach a server that might take its capabilities anyway.
            "initialize" => vec![Out::Note(
                "the app sent initialize as a notification; dropped".into(),
            )],
            // A request's method sent without an id is no request: the
            // rules for tools are applied to requests, and a server that
            // ran it anyway would run a hidden tool. Every notification an
            // app sends in MCP is named `notifications/…`. (Found by the
            // fuzz target `one_reading`.)
            _ if !method.starts_with("notifications/") => vec![Out::Note(format!(
                "the app sent {method} as a notification, without an id; dropped"
            ))],
            "notifications/initialized" => {
                // A modern server has no handshake to finish.
                let mut out = if self.modern() {
                    Vec::new()
                } else {
                    vec![Out::Server(with_newline(line))]
                };
                // Now the app may be asked what it works in.
                out.extend(self.ask_app_roots());
                out
            }
            "notifications/cancelled" => {
                let Some((mut params, request)) = cancelled_request(params) else {
                    return vec![Out::Note(
                        "a cancellation without a requestId was dropped".into(),
                    )];
                };
                if let Some(withdrawn) = self.cancel_asked(&request, now) {
                    return withdrawn;
                }
                let Some(ours) = self.app_ids.remove(request.as_str()) else {
                    return vec![Out::Note(format!(
                        "a cancellation of request {request}, which is not in flight, was dropped"
                    ))];
                };
                self.subscriptions.forget(ours);
                let mut out = Vec::new();
                // In flight at the server, or waiting in a round for the
                // app's own answers.
                let pending = match self.to_server.remove(&ours) {
                    Some(ToServer::App(pending)) => Some(pending),
                    _ => self.rounds.remove(&ours).map(|round| round.pending),
                };
                if let Some(pending) = pending {
                    out.push(pending.ended(now, "cancelled".into()));
                }
                params.insert("requestId".into(), json!(ours));
                out.insert(
                    0,
                    Out::Server(notification_line(
                        "notifications/cancelled",
                        &Value::Object(params),
                    )),
                );
                out
            }
            _ => vec![Out::Server(with_newline(line))],
        }
    }

    /// A `roots/list` of the bridge's own to the app, if it has roots.
    pub(super) fn ask_app_roots(&mut self) -> Option<Out> {
        if !self.app.capabilities.roots {
            return None;
        }
        let ours = self.next_app_id;
        self.next_app_id += 1;
        self.to_app.insert(ours, ToApp::Roots);
        Some(Out::App(request_line(
            &ours.to_string(),
            "roots/list",
            None,
        )))
    }

    /// The app answered the bridge's request `id` (JSON text) with a line
    /// that was refused: a server's request passed on to the app is told
    /// it gets no answer (-32603, in words), rather than wait for one.
    pub(super) fn answer_refused(&mut self, id: &str, words: &str) -> Option<Out> {
        let ours = id.parse::<u64>().ok()?;
        if !matches!(self.to_app.get(&ours), Some(ToApp::Server { .. })) {
            return None;
        }
        let Some(ToApp::Server { server_id }) = self.to_app.remove(&ours) else {
            return None;
        };
        self.server_ids.remove(&server_id);
        Some(Out::Server(error_line(
            &server_id,
            -32603,
            &format!("the app's answer was not passed on: {words}"),
        )))
    }

    pub(super) fn app_response(
        &mut self,
        id: Raw<'_>,
        result: Option<Raw<'_>>,
        error: Option<Raw<'_>>,
        now: Instant,
    ) -> Vec<Out> {
        let ours = match answered_id("the app", id) {
            Ok(ours) => ours,
            Err(dropped) => return dropped,
        };
        match self.to_app.remove(&ours) {
            Some(ToApp::Server { server_id }) => {
                self.server_ids.remove(&server_id);
                vec![Out::Server(response_line(&server_id, result, error))]
            }
            Some(ToApp::Roots) => {
                let uris = result
                    .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                    .and_then(|r| r.get("roots").and_then(Value::as_array).cloned())
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|r| r.get("uri").and_then(Value::as_str).map(str::to_owned))
                    .collect();
                vec![Out::AppRoots(uris)]
            }
            Some(ToApp::Input { round, key }) => {
                self.input_answered(round, key, result, error, now)
            }
            None => never_sent("the app", ours),
        }
    }
}
