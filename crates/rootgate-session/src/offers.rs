//! What a running server offers, and trying it: its tools, resources,
//! resource templates and prompts, listed whole; a tool called with its
//! progress followed and a way to cancel it; a resource read or followed; a
//! prompt got. The window, the bridge's tests and the core's tests all go
//! through these [`Session`] methods, so there is one path to a server.
//!
//! Each request is sent as one request (rmcp's `send_request_with_option`,
//! the call beneath its `*_once` helpers) so that its progress token is
//! known and its progress notifications can be told apart from another
//! call's; a modern server's input rounds for roots are answered from
//! consent as it is at each round (see `rounds`), and every try lands in the
//! timeline as [`Event::Tried`], arguments whose names look secret masked.
//!
//! A tool's arguments are data for the server, not folders for Rootgate:
//! nothing here reads them for paths or grants anything because of them. A
//! server that is asked to read outside its folders answers for itself;
//! roots are advice to it, which is what a person trying it can see.
//!
//! What is not here: which calls the window has open (the supervisor keeps
//! those, with their cancel handles), and the rendering of results (the
//! window shows them exactly as the server sent them).

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest, ErrorCode,
    GetPromptRequest, GetPromptRequestParams, InputRequests, InputResponses,
    ProgressNotificationParam, ProgressToken, ReadResourceRequest, ReadResourceRequestParams,
    ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, ServiceError};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use super::notices::Notice;
use super::{Session, SessionError, Status, rounds};
use rootgate_model::servers::Era;
use rootgate_model::servers::looks_secret;
use rootgate_model::timeline::{Event, TryResult};

/// One kind of what a server offers.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OfferList {
    /// Whether the server declared the capability (`tools`, `resources`,
    /// `prompts`).
    pub offered: bool,
    /// Every page of the list, each item exactly as the server sent it.
    pub items: Vec<Value>,
    /// Why listing failed, in plain words.
    pub error: Option<String>,
}

impl OfferList {
    fn not_offered() -> Self {
        OfferList {
            offered: false,
            items: Vec::new(),
            error: None,
        }
    }
}

/// Everything a running server offers.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Offers {
    pub tools: OfferList,
    pub resources: OfferList,
    pub templates: OfferList,
    pub prompts: OfferList,
}

/// The outcome of trying something on a server.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TryOutcome {
    /// The result exactly as the server sent it: a `CallToolResult`,
    /// `ReadResourceResult` or `GetPromptResult`.
    pub result: Value,
    pub duration_ms: u64,
    /// How many times the server asked for its roots while handling it: a
    /// modern server's input rounds, and the `roots/list` a legacy server
    /// was answered meanwhile.
    pub roots_asked: u32,
}

/// Progress the server reported on one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// How many notices a subscriber may fall behind before it misses the
/// oldest: progress comes in bursts, and a late progress value is worth
/// nothing.
pub(crate) const NOTICE_BUFFER: usize = 256;

/// One try: what it asks of the server, and how it is named.
enum Ask {
    Tool {
        name: String,
        arguments: Map<String, Value>,
    },
    Read {
        uri: String,
    },
    Prompt {
        name: String,
        arguments: Map<String, Value>,
    },
}

impl Ask {
    fn method(&self) -> &'static str {
        match self {
            Ask::Tool { .. } => "tools/call",
            Ask::Read { .. } => "resources/read",
            Ask::Prompt { .. } => "prompts/get",
        }
    }

    fn target(&self) -> &str {
        match self {
            Ask::Tool { name, .. } | Ask::Prompt { name, .. } => name,
            Ask::Read { uri } => uri,
        }
    }

    fn arguments(&self) -> Option<&Map<String, Value>> {
        match self {
            Ask::Tool { arguments, .. } | Ask::Prompt { arguments, .. } => Some(arguments),
            Ask::Read { .. } => None,
        }
    }

    /// The request, with a round's answers and the server's state echoed.
    fn request(&self, responses: Option<InputResponses>, state: Option<String>) -> ClientRequest {
        match self {
            Ask::Tool { name, arguments } => {
                let mut params =
                    CallToolRequestParams::new(name.clone()).with_arguments(arguments.clone());
                params.input_responses = responses;
                params.request_state = state;
                ClientRequest::CallToolRequest(CallToolRequest::new(params))
            }
            Ask::Read { uri } => {
                let mut params = ReadResourceRequestParams::new(uri.clone());
                params.input_responses = responses;
                params.request_state = state;
                ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params))
            }
            Ask::Prompt { name, arguments } => {
                let mut params = GetPromptRequestParams::new(name.clone());
                params.arguments = Some(arguments.clone());
                params.input_responses = responses;
                params.request_state = state;
                ClientRequest::GetPromptRequest(GetPromptRequest::new(params))
            }
        }
    }

    /// The result, if `answer` is the kind this request completes with.
    fn complete(&self, answer: &ServerResult) -> Option<Result<Value, serde_json::Error>> {
        match (self, answer) {
            (Ask::Tool { .. }, ServerResult::CallToolResult(r)) => Some(serde_json::to_value(r)),
            (Ask::Read { .. }, ServerResult::ReadResourceResult(r)) => {
                Some(serde_json::to_value(r))
            }
            (Ask::Prompt { .. }, ServerResult::GetPromptResult(r)) => Some(serde_json::to_value(r)),
            // A tool with no content to give may be answered with an empty
            // result; it is a complete, empty call.
            (Ask::Tool { .. }, ServerResult::EmptyResult(_)) => {
                Some(Ok(serde_json::json!({ "content": [] })))
            }
            _ => None,
        }
    }
}

/// Where a try's progress goes, and what cancels it.
#[derive(Default)]
pub struct Watch {
    pub progress: Option<mpsc::UnboundedSender<Progress>>,
    pub cancel: CancellationToken,
}

impl Session {
    /// Everything the running server offers, every page of each list, asked
    /// at once. A kind the server did not declare is not asked for; one whose
    /// listing fails says why, and the others are still shown.
    pub async fn offers(&self) -> Result<Offers, SessionError> {
        let capabilities = match self.status() {
            Status::Running(info) => info.capabilities,
            _ => return Err(SessionError::NotRunning),
        };
        let peer = self.peer().await.ok_or(SessionError::NotRunning)?;
        let declared = |kind: &str| capabilities.get(kind).is_some_and(|c| !c.is_null());
        let within = self.config.request_timeout;
        let (tools, resources, templates, prompts) = tokio::join!(
            listed(declared("tools"), within, peer.list_all_tools()),
            listed(declared("resources"), within, peer.list_all_resources()),
            // A server with resources but no templates may not know the
            // method at all; that is an empty list, not a failure.
            listed(declared("resources"), within, async {
                match peer.list_all_resource_templates().await {
                    Err(ServiceError::McpError(e)) if e.code == ErrorCode::METHOD_NOT_FOUND => {
                        Ok(Vec::new())
                    }
                    other => other,
                }
            }),
            listed(declared("prompts"), within, peer.list_all_prompts()),
        );
        Ok(Offers {
            tools,
            resources,
            templates,
            prompts,
        })
    }

    /// The server's notices from now on (progress, lists changed, followed
    /// resources updated), across restarts.
    pub fn subscribe_notices(&self) -> broadcast::Receiver<Notice> {
        self.notices.subscribe()
    }

    /// Calls a tool on the running server and returns its result as JSON,
    /// within the session's request timeout. A modern server's input rounds
    /// for roots are answered from consent as it is at each round (see
    /// `rounds`), and each lands in the timeline, as the call does.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Value, SessionError> {
        let ask = Ask::Tool {
            name: name.to_owned(),
            arguments,
        };
        Ok(self.attempt(ask, Watch::default()).await?.result)
    }

    /// Calls a tool, with its progress sent to `watch.progress` and the call
    /// cancelled (the server told `notifications/cancelled`) when
    /// `watch.cancel` is. A result with `isError` is an outcome, not an
    /// error: the tool ran and said what went wrong.
    pub async fn try_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        watch: Watch,
    ) -> Result<TryOutcome, SessionError> {
        let ask = Ask::Tool {
            name: name.to_owned(),
            arguments,
        };
        self.attempt(ask, watch).await
    }

    /// Reads a resource (`resources/read`).
    pub async fn read_resource(&self, uri: &str, watch: Watch) -> Result<TryOutcome, SessionError> {
        self.attempt(
            Ask::Read {
                uri: uri.to_owned(),
            },
            watch,
        )
        .await
    }

    /// Gets a prompt with its arguments (`prompts/get`).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        watch: Watch,
    ) -> Result<TryOutcome, SessionError> {
        let ask = Ask::Prompt {
            name: name.to_owned(),
            arguments,
        };
        self.attempt(ask, watch).await
    }

    /// Asks the server to say when a resource changes
    /// (`resources/subscribe`), or to stop (`resources/unsubscribe`).
    /// A modern server is followed on a listen stream instead, which the
    /// revision has in place of both.
    pub async fn follow_resource(&self, uri: &str, follow: bool) -> Result<(), SessionError> {
        let modern = matches!(self.status(), Status::Running(info) if info.era == Era::Modern);
        let peer = self.peer().await.ok_or(SessionError::NotRunning)?;
        if modern {
            let mut followed = self.followed.lock().unwrap_or_else(|p| p.into_inner());
            if follow {
                let listening = super::listen::resource(peer, uri, self.notices.clone());
                followed.insert(uri.to_owned(), listening);
            } else {
                // Dropped, its stream ends.
                followed.remove(uri);
            }
            return Ok(());
        }
        let within = self.config.request_timeout;
        tokio::time::timeout(within, super::protocol::follow_resource(&peer, uri, follow))
            .await
            .map_err(|_| SessionError::Timeout(within))??;
        Ok(())
    }

    /// One try from start to end, recorded whatever its outcome.
    async fn attempt(&self, ask: Ask, watch: Watch) -> Result<TryOutcome, SessionError> {
        let started = Instant::now();
        self.hold_for_folders(&ask).await;
        let answered = || self.answered.load(std::sync::atomic::Ordering::Relaxed);
        let before = answered();
        let mut roots_asked = 0;
        let outcome = self.rounds(&ask, &watch, &mut roots_asked).await;
        // A legacy server asks `roots/list` on its own while it handles a
        // call (the Python SDK's tools do); those answers count too.
        roots_asked += u32::try_from(answered().saturating_sub(before)).unwrap_or(u32::MAX);
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (result, detail) = match &outcome {
            Ok(value) if value.get("isError").and_then(Value::as_bool) == Some(true) => {
                (TryResult::ToolError, first_text(value))
            }
            Ok(_) => (TryResult::Ok, None),
            Err(SessionError::Cancelled) => (TryResult::Cancelled, None),
            Err(e) => (TryResult::Failed, Some(e.to_string())),
        };
        self.timeline.record(
            &self.server,
            Event::Tried {
                method: ask.method().to_owned(),
                target: ask.target().to_owned(),
                arguments: ask.arguments().map(masked),
                duration_ms,
                outcome: result,
                detail,
                roots_asked,
            },
        );
        outcome.map(|result| TryOutcome {
            result,
            duration_ms,
            roots_asked,
        })
    }

    /// A try right after a start waits, as an AI app's first request does,
    /// until the server has applied its first folders (see `ready`), so
    /// that it is not answered as if nothing were shared. A wait is
    /// recorded; a try that did not wait is not (the window tries often).
    async fn hold_for_folders(&self, ask: &Ask) {
        if !matches!(self.status(), Status::Running(_)) {
            return;
        }
        let mut readiness = self.ready.clone();
        let held = super::ready::hold(&mut readiness, super::ready::HOLD_BOUND).await;
        if held.waited.as_millis() == 0 {
            return;
        }
        let what = format!("the try of {} “{}”", ask.method(), ask.target());
        self.timeline.record(
            &self.server,
            Event::FirstRequest {
                held_ms: u64::try_from(held.waited.as_millis()).unwrap_or(u64::MAX),
                said: held.words(&what),
            },
        );
    }

    /// Sends `ask`, answering input rounds, until the server completes it.
    async fn rounds(
        &self,
        ask: &Ask,
        watch: &Watch,
        roots_asked: &mut u32,
    ) -> Result<Value, SessionError> {
        let peer = self.peer().await.ok_or(SessionError::NotRunning)?;
        let (mut responses, mut state) = (None, None);
        for _ in 0..rounds::MAX_ROUNDS {
            let answer = self
                .once(&peer, ask.request(responses, state), watch)
                .await?;
            if let ServerResult::InputRequiredResult(asked) = &answer {
                let requests = asked.input_requests.clone().unwrap_or_default();
                let (given, answers) = self.answer_round(&requests, ask)?;
                *roots_asked += given;
                responses = answers;
                state = asked.request_state.clone();
                continue;
            }
            return match ask.complete(&answer) {
                Some(result) => Ok(result?),
                None => Err(SessionError::UnexpectedResult(format!(
                    "{} `{}`",
                    ask.method(),
                    ask.target()
                ))),
            };
        }
        Err(SessionError::TooManyRounds(rounds::MAX_ROUNDS))
    }

    /// One request and its answer, its progress passed on, cancelled when
    /// the watch says so. The request timeout starts again at each progress
    /// notification: a long call that reports progress is alive.
    async fn once(
        &self,
        peer: &Peer<RoleClient>,
        request: ClientRequest,
        watch: &Watch,
    ) -> Result<ServerResult, SessionError> {
        // Subscribed before the request is sent, so its first progress is
        // not missed.
        let mut notices = self.notices.subscribe();
        let within = self.config.request_timeout;
        let options = PeerRequestOptions::with_timeout(within).reset_timeout_on_progress();
        let handle = peer.send_request_with_option(request, options).await?;
        let (id, token) = (handle.id.clone(), handle.progress_token.clone());
        let mut answer = Box::pin(handle.await_response());
        loop {
            tokio::select! {
                answer = &mut answer => {
                    // Progress the server sent just before its answer may
                    // still be on its way through rmcp's handler; what has
                    // arrived is passed on, in order, before the answer.
                    tokio::task::yield_now().await;
                    while let Ok(notice) = notices.try_recv() {
                        forward(notice, &token, watch);
                    }
                    return answer.map_err(|e| timeout_or(e, within));
                }
                notice = notices.recv() => {
                    if let Ok(notice) = notice {
                        forward(notice, &token, watch);
                    }
                }
                () = watch.cancel.cancelled() => {
                    let reason = "cancelled by the person in Rootgate".to_owned();
                    let params = CancelledNotificationParam::new(Some(id), Some(reason));
                    let _ = peer.notify_cancelled(params).await;
                    // The request is left to end on its own (an answer the
                    // server sends anyway, its timeout, or the connection
                    // closing), so that rmcp forgets it as it does every
                    // request: dropped here, its entries would stay.
                    tokio::spawn(async move {
                        let _ = answer.await;
                    });
                    return Err(SessionError::Cancelled);
                }
            }
        }
    }

    /// Answers one input round of `ask` from the list as it is now, and
    /// records it: how many roots lists were given, and the retry's answers.
    fn answer_round(
        &self,
        requests: &InputRequests,
        ask: &Ask,
    ) -> Result<(u32, Option<InputResponses>), SessionError> {
        let now = self.roots.borrow().clone();
        match rounds::answer(requests, &now) {
            rounds::Round::Answered { responses, given } => {
                let count = u32::try_from(given.len()).unwrap_or(u32::MAX);
                for (key, roots) in given {
                    self.timeline.record(
                        &self.server,
                        Event::RootsAskedInRound {
                            method: ask.method().into(),
                            target: Some(ask.target().to_owned()),
                            key,
                            generation: now.generation(),
                            roots,
                        },
                    );
                }
                Ok((count, (!responses.is_empty()).then_some(responses)))
            }
            rounds::Round::NotOffered { key, method } => {
                self.timeline.record(
                    &self.server,
                    Event::InputNotOffered {
                        method: ask.method().into(),
                        target: Some(ask.target().to_owned()),
                        key,
                        asked: method.clone(),
                    },
                );
                Err(SessionError::NotOffered {
                    request: format!("{} `{}`", ask.method(), ask.target()),
                    asked: method,
                })
            }
        }
    }
}

/// One kind's list, every page, or why it could not be had.
async fn listed<T: Serialize>(
    declared: bool,
    within: Duration,
    list: impl Future<Output = Result<Vec<T>, ServiceError>>,
) -> OfferList {
    if !declared {
        return OfferList::not_offered();
    }
    let error = |error: String| OfferList {
        offered: true,
        items: Vec::new(),
        error: Some(error),
    };
    match tokio::time::timeout(within, list).await {
        Err(_) => error(SessionError::Timeout(within).to_string()),
        Ok(Err(e)) => error(SessionError::from(e).to_string()),
        Ok(Ok(items)) => match items.iter().map(serde_json::to_value).collect() {
            Ok(items) => OfferList {
                offered: true,
                items,
                error: None,
            },
            Err(e) => error(SessionError::from(e).to_string()),
        },
    }
}

/// rmcp's own timeout (the request's, reset on progress) as the session's.
fn timeout_or(e: ServiceError, within: Duration) -> SessionError {
    match e {
        ServiceError::Timeout { .. } => SessionError::Timeout(within),
        other => SessionError::from(other),
    }
}

/// Passes a notice on to the watch when it is progress of this request.
fn forward(notice: Notice, token: &ProgressToken, watch: &Watch) {
    if let (Notice::Progress(p), Some(to)) = (notice, &watch.progress)
        && p.progress_token == *token
    {
        let _ = to.send(progress_of(p));
    }
}

fn progress_of(p: ProgressNotificationParam) -> Progress {
    Progress {
        progress: p.progress,
        total: p.total,
        message: p.message,
    }
}

/// The first text of a result's content, for the timeline's one line on a
/// tool's error, cut to a readable length.
fn first_text(result: &Value) -> Option<String> {
    let text = result
        .get("content")?
        .as_array()?
        .iter()
        .find_map(|c| c.get("text").and_then(Value::as_str))?;
    let mut cut: String = text.chars().take(240).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    Some(cut)
}

/// Arguments as the timeline keeps them: the value of every member whose
/// name looks secret (at any depth) replaced by "…".
pub fn masked(arguments: &Map<String, Value>) -> Value {
    fn mask(value: &Value) -> Value {
        match value {
            Value::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| {
                        let v = if looks_secret(k) {
                            Value::String("…".into())
                        } else {
                            mask(v)
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(mask).collect()),
            other => other.clone(),
        }
    }
    mask(&Value::Object(arguments.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_looking_arguments_are_masked_at_any_depth() {
        let args = json!({
            "path": "/tmp/a",
            "apiKey": "sk-1",
            "nested": { "password": "p", "list": [{ "token": "t", "keep": 1 }] }
        });
        let Value::Object(args) = args else {
            unreachable!("an object literal")
        };
        assert_eq!(
            masked(&args),
            json!({
                "path": "/tmp/a",
                "apiKey": "…",
                "nested": { "password": "…", "list": [{ "token": "…", "keep": 1 }] }
            })
        );
    }

    #[test]
    fn a_tool_error_is_summed_up_by_its_first_text() {
        let result = json!({
            "content": [{ "type": "image", "data": "", "mimeType": "image/png" },
                        { "type": "text", "text": "Access denied - path outside allowed directories" }],
            "isError": true
        });
        assert_eq!(
            first_text(&result).as_deref(),
            Some("Access denied - path outside allowed directories")
        );
        let long = json!({ "content": [{ "type": "text", "text": "x".repeat(1000) }] });
        assert_eq!(first_text(&long).map(|t| t.chars().count()), Some(241));
    }
}
