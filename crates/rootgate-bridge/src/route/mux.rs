//! The mux: one server session shared by several app connections, as a
//! pure state machine over lines (issue #42, "many apps on one server
//! session").
//!
//! Each connection keeps its own router (its own ids, tool rules, asks,
//! record of calls and first-request hold); what its router writes for the
//! server comes here as a *member*'s line, and what the server writes is
//! sent to the member it is for. Every request crosses under an id of the
//! mux's own, so two members' ids never meet, and the answer goes back to
//! the member that asked under the id it asked with. Beyond ids:
//!
//! - the server is initialized once per life: the first member's
//!   `initialize` goes to it, and every member is answered with the
//!   server's own answer to it; `notifications/initialized` goes once;
//! - progress tokens are made the mux's own on the way in and given back
//!   on the way out, so progress reaches only the member that asked for it;
//! - `resources/subscribe` and `unsubscribe` are counted: the server hears
//!   the first subscription to a resource and the last unsubscription, and
//!   `notifications/resources/updated` reaches only the members subscribed;
//! - the server's logging level is the most verbose any member set, and
//!   each member is sent only the messages at or above its own;
//! - a request of the server's (sampling, elicitation) goes to the member
//!   whose request caused it: the one whose progress token it carries, else
//!   the one member with a call in flight; else it is refused in words.
//!   `roots/list` is answered beneath, from consent, as for one app;
//! - list changes and other notifications reach every member.
//!
//! What is not here: reading and writing (the hub, `shared`), and anything
//! a single connection's router decides.

use std::collections::{BTreeMap, BTreeSet};

use super::*;

/// A connection sharing the server, by the hub's number for it.
pub type Member = u64;

/// What the hub should do, in order.
#[derive(Debug, PartialEq)]
pub enum MuxOut {
    /// Write this line to the server.
    Server(Vec<u8>),
    /// Give this line to the member, as if its server had written it.
    Member(Member, Vec<u8>),
    /// The server asked `roots/list` (id as JSON text): answered from
    /// consent by the session's wire.
    RootsList(Box<str>),
    /// Something dropped or refused, in words, for every member's log.
    Note(String),
}

/// What a request the mux sent the server was, for its answer.
#[derive(Debug)]
enum Asked {
    /// A member's request; answered to it.
    Plain,
    Initialize,
    Subscribe(String),
    /// The mux's own (an unsubscription or level for a member that left,
    /// or the cancellation of its calls): its answer goes nowhere.
    Own,
}

#[derive(Debug)]
struct Pending {
    member: Member,
    /// The member's id for it.
    theirs: u64,
    asked: Asked,
    method: String,
    /// The member's own progress token, when the mux gave it one of its own.
    token: Option<Value>,
}

/// The server's `initialize`, once per life.
#[derive(Debug, Default)]
enum Opening {
    #[default]
    NotSent,
    /// Sent; these members' `initialize` (their ids) wait for its answer.
    Sent(Vec<(Member, u64)>),
    /// The server's answer: its `result` or `error`.
    Answered {
        result: Option<Box<RawValue>>,
        error: Option<Box<RawValue>>,
    },
}

/// The syslog levels MCP logging uses, least severe first.
const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The `level` of a `logging/setLevel` or a `notifications/message`, as
/// its place in [`LEVELS`].
fn level_in(params: Option<Raw<'_>>) -> Option<usize> {
    let [level] = envelope::fields(params?, ["level"])?;
    let name: String = serde_json::from_str(level?.get()).ok()?;
    LEVELS.iter().position(|l| *l == name)
}

/// The level a member that never set one is sent, while another member
/// has made the server more verbose than it would be by itself.
const UNSET_LEVEL: usize = 1;

/// One server life shared by several members.
#[derive(Debug, Default)]
pub struct Mux {
    members: BTreeSet<Member>,
    next: u64,
    pending: HashMap<u64, Pending>,
    ours: HashMap<(Member, u64), u64>,
    opening: Opening,
    initialized_sent: bool,
    subscribed: BTreeMap<String, BTreeSet<Member>>,
    levels: BTreeMap<Member, usize>,
    sent_level: Option<usize>,
    /// The server's requests given to a member, by their id's JSON text.
    asked_of: HashMap<String, Member>,
}

impl Mux {
    pub fn new() -> Mux {
        Mux::default()
    }

    /// A member joins: from now on it hears the server's notifications.
    pub fn join(&mut self, member: Member) {
        self.members.insert(member);
    }

    fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// A member leaves: its calls in flight are cancelled at the server,
    /// what only it subscribed to is unsubscribed, the level is lowered to
    /// what the others asked, and the server's requests it was given are
    /// refused.
    pub fn leave(&mut self, member: Member) -> Vec<MuxOut> {
        let mut outs = Vec::new();
        if !self.members.remove(&member) {
            return outs;
        }
        // Its calls are cancelled and their answers go nowhere. Its
        // `initialize`, if it opened the life, still opens it for the others
        // (its answer is kept; only the leaver is not answered).
        let mut cancelled: Vec<u64> = Vec::new();
        for (ours, pending) in &mut self.pending {
            if pending.member == member && matches!(pending.asked, Asked::Plain) {
                cancelled.push(*ours);
                pending.asked = Asked::Own;
            }
        }
        cancelled.sort_unstable();
        for ours in cancelled {
            outs.push(MuxOut::Server(notification_line(
                "notifications/cancelled",
                &json!({"requestId": ours, "reason": "the app that sent it disconnected"}),
            )));
        }
        self.ours.retain(|(m, _), _| *m != member);
        if let Opening::Sent(waiting) = &mut self.opening {
            waiting.retain(|(m, _)| *m != member);
        }
        let mut unsubscribe = Vec::new();
        self.subscribed.retain(|uri, who| {
            if who.remove(&member) && who.is_empty() {
                unsubscribe.push(uri.clone());
            }
            !who.is_empty()
        });
        for uri in unsubscribe {
            let ours = self.own_request("resources/unsubscribe", &json!({"uri": uri}));
            outs.push(MuxOut::Server(ours));
        }
        self.levels.remove(&member);
        if let Some(line) = self.level_change() {
            outs.push(MuxOut::Server(line));
        }
        let mut refused: Vec<String> = Vec::new();
        self.asked_of.retain(|id, m| {
            if *m == member {
                refused.push(id.clone());
            }
            *m != member
        });
        refused.sort();
        for id in refused {
            outs.push(MuxOut::Server(error_line(
                &id,
                -32603,
                "the AI app this request went to has disconnected from Rootgate",
            )));
        }
        outs
    }

    /// A request of the mux's own, whose answer goes nowhere.
    fn own_request(&mut self, method: &str, params: &Value) -> Vec<u8> {
        let ours = self.id();
        self.pending.insert(
            ours,
            Pending {
                member: 0,
                theirs: 0,
                asked: Asked::Own,
                method: method.to_owned(),
                token: None,
            },
        );
        let mut line = json!({"jsonrpc": "2.0", "id": ours, "method": method, "params": params})
            .to_string()
            .into_bytes();
        line.push(b'\n');
        line
    }

    /// The most verbose level any member set, as a request for the server
    /// when it is not what the server was last told.
    fn level_change(&mut self) -> Option<Vec<u8>> {
        let most = self.levels.values().min().copied();
        if most.is_none() || most == self.sent_level {
            return None;
        }
        self.sent_level = most;
        let level = LEVELS[most?];
        Some(self.own_request("logging/setLevel", &json!({"level": level})))
    }

    /// What a member's router wrote for the server (one line, without its
    /// newline).
    pub fn member_line(&mut self, member: Member, line: &[u8]) -> Vec<MuxOut> {
        let Ok(text) = std::str::from_utf8(line) else {
            return Vec::new();
        };
        let Ok(message) = envelope::parse(text) else {
            return Vec::new();
        };
        match (&message.id, message.method.as_deref()) {
            (Some(id), Some(method)) => self.member_request(member, id.get(), method, &message),
            // The member's answer to a request of the server's: its id is
            // the server's own, passed through, and only from the member
            // the request went to (its router answers nothing else, but an
            // answer to another app's request must not reach the server
            // even if one did).
            (Some(id), None) => {
                if self.asked_of.get(id.get()) != Some(&member) {
                    return vec![MuxOut::Note(format!(
                        "an answer to request {} of the server's, which was not this app's, \
                         was dropped",
                        id.get()
                    ))];
                }
                self.asked_of.remove(id.get());
                vec![MuxOut::Server(with_newline(line))]
            }
            (None, Some("notifications/initialized")) => {
                if std::mem::replace(&mut self.initialized_sent, true) {
                    Vec::new()
                } else {
                    vec![MuxOut::Server(with_newline(line))]
                }
            }
            (None, Some("notifications/cancelled")) => {
                let Some((mut params, request)) = cancelled_request(message.params) else {
                    return Vec::new();
                };
                let theirs = request.parse::<u64>().ok();
                let Some(ours) = theirs.and_then(|t| self.ours.get(&(member, t))) else {
                    return Vec::new();
                };
                params.insert("requestId".into(), json!(ours));
                vec![MuxOut::Server(notification_line(
                    "notifications/cancelled",
                    &Value::Object(params),
                ))]
            }
            _ => vec![MuxOut::Server(with_newline(line))],
        }
    }

    fn member_request(
        &mut self,
        member: Member,
        id: &str,
        method: &str,
        message: &Message<'_>,
    ) -> Vec<MuxOut> {
        // The member's router numbers every request it sends.
        let Ok(theirs) = id.parse::<u64>() else {
            return vec![MuxOut::Note(format!(
                "a request under an id the bridge does not use ({id}) was dropped"
            ))];
        };
        let answer = |result: &str| vec![MuxOut::Member(member, result_line(id, result))];
        let mut asked = Asked::Plain;
        // What the server is sent in place of the member's params.
        let mut instead: Option<String> = None;
        match method {
            "initialize" => match &mut self.opening {
                Opening::Answered { result, error } => {
                    let line = response_line(
                        id,
                        result.as_deref().map(Raw::from),
                        error.as_deref().map(Raw::from),
                    );
                    return vec![MuxOut::Member(member, line)];
                }
                Opening::Sent(waiting) => {
                    waiting.push((member, theirs));
                    return Vec::new();
                }
                Opening::NotSent => {
                    self.opening = Opening::Sent(Vec::new());
                    asked = Asked::Initialize;
                }
            },
            "resources/subscribe" => {
                let uri = subscribed_uri(message.params).unwrap_or_default();
                let who = self.subscribed.entry(uri.clone()).or_default();
                let first = who.is_empty();
                who.insert(member);
                if !first {
                    return answer("{}");
                }
                asked = Asked::Subscribe(uri);
            }
            "resources/unsubscribe" => {
                let uri = subscribed_uri(message.params).unwrap_or_default();
                if let Some(who) = self.subscribed.get_mut(&uri) {
                    who.remove(&member);
                    if !who.is_empty() {
                        return answer("{}");
                    }
                    self.subscribed.remove(&uri);
                }
            }
            "logging/setLevel" => {
                if let Some(level) = level_in(message.params) {
                    self.levels.insert(member, level);
                    let most = self.levels.values().min().copied().unwrap_or(level);
                    if Some(most) == self.sent_level {
                        return answer("{}");
                    }
                    // The server is set to the most verbose level any member
                    // asked for, whichever member's request it is.
                    self.sent_level = Some(most);
                    instead = Some(json!({"level": LEVELS[most]}).to_string());
                }
            }
            _ => {}
        }
        let ours = self.id();
        let (tokened, token) = own_token(message.params, ours);
        let params = instead
            .or(tokened)
            .and_then(|p| RawValue::from_string(p).ok());
        self.pending.insert(
            ours,
            Pending {
                member,
                theirs,
                asked,
                method: method.to_owned(),
                token,
            },
        );
        self.ours.insert((member, theirs), ours);
        let params = params.as_deref().map(Raw::from).or(message.params);
        vec![MuxOut::Server(request_line(
            &ours.to_string(),
            method,
            params,
        ))]
    }

    /// What the server wrote (one line, without its newline).
    pub fn server_line(&mut self, line: &[u8]) -> Vec<MuxOut> {
        let Ok(text) = std::str::from_utf8(line) else {
            return vec![MuxOut::Note(
                "the server wrote a line that is not UTF-8; dropped".into(),
            )];
        };
        let message = match envelope::parse(text) {
            Ok(message) => message,
            Err(e) => {
                return vec![MuxOut::Note(format!(
                    "the server wrote a line that is not JSON ({e}); dropped: {}",
                    excerpt(line)
                ))];
            }
        };
        match (&message.id, message.method.as_deref()) {
            (Some(id), None) => self.server_answer(id.get(), &message),
            (Some(id), Some("roots/list")) => vec![MuxOut::RootsList(id.get().into())],
            (Some(id), Some("ping")) => vec![MuxOut::Server(result_line(id.get(), "{}"))],
            (Some(id), Some(method)) => self.server_request(id.get(), method, &message, line),
            (None, Some(method)) => self.server_notification(method, &message, line),
            (None, None) => vec![MuxOut::Note(format!(
                "the server wrote a message that is neither a request, an answer nor a \
                 notification; dropped: {}",
                excerpt(line)
            ))],
        }
    }

    fn server_answer(&mut self, id: &str, message: &Message<'_>) -> Vec<MuxOut> {
        let Some(pending) = id.parse::<u64>().ok().and_then(|o| self.pending.remove(&o)) else {
            return vec![MuxOut::Note(format!(
                "the server answered request {id}, which was never sent to it; dropped"
            ))];
        };
        self.ours.remove(&(pending.member, pending.theirs));
        let answer =
            |theirs: u64| response_line(&theirs.to_string(), message.result, message.error);
        let mut outs = Vec::new();
        match pending.asked {
            Asked::Own => return outs,
            Asked::Initialize => {
                let waiting = match std::mem::take(&mut self.opening) {
                    Opening::Sent(waiting) => waiting,
                    _ => Vec::new(),
                };
                self.opening = Opening::Answered {
                    result: message.result.map(Raw::to_owned_raw),
                    error: message.error.map(Raw::to_owned_raw),
                };
                for (member, theirs) in waiting {
                    outs.push(MuxOut::Member(member, answer(theirs)));
                }
            }
            Asked::Subscribe(uri) if message.error.is_some() => {
                if let Some(who) = self.subscribed.get_mut(&uri) {
                    who.remove(&pending.member);
                    if who.is_empty() {
                        self.subscribed.remove(&uri);
                    }
                }
            }
            Asked::Subscribe(_) | Asked::Plain => {}
        }
        if self.members.contains(&pending.member) {
            outs.insert(0, MuxOut::Member(pending.member, answer(pending.theirs)));
        }
        outs
    }

    /// A request of the server's to a client: to the member that caused it.
    fn server_request(
        &mut self,
        id: &str,
        method: &str,
        message: &Message<'_>,
        line: &[u8],
    ) -> Vec<MuxOut> {
        match self.cause(message.params) {
            Ok(member) => {
                self.asked_of.insert(id.to_owned(), member);
                vec![MuxOut::Member(member, with_newline(line))]
            }
            Err(why) => {
                let why = format!("Rootgate did not pass on this server's `{method}`: {why}");
                vec![
                    MuxOut::Server(error_line(id, -32603, &why)),
                    MuxOut::Note(why),
                ]
            }
        }
    }

    /// Which member a request of the server's is for: the one whose
    /// progress token it carries, else the one member with a call in
    /// flight that may ask (a tool call, a prompt or a resource read), else
    /// the one with any request in flight.
    fn cause(&self, params: Option<Raw<'_>>) -> Result<Member, String> {
        if let Some(token) = progress_token(params)
            && let Some(pending) = token
                .as_u64()
                .and_then(|ours| self.pending.get(&ours))
                .filter(|p| p.token.is_some() && self.members.contains(&p.member))
        {
            return Ok(pending.member);
        }
        let in_flight = |may_ask: bool| -> BTreeSet<Member> {
            self.pending
                .values()
                .filter(|p| matches!(p.asked, Asked::Plain) && self.members.contains(&p.member))
                .filter(|p| {
                    !may_ask
                        || matches!(
                            p.method.as_str(),
                            "tools/call" | "prompts/get" | "resources/read"
                        )
                })
                .map(|p| p.member)
                .collect()
        };
        for may_ask in [true, false] {
            let members = in_flight(may_ask);
            if members.len() == 1 {
                return Ok(*members.iter().next().unwrap_or(&0));
            }
            if members.len() > 1 {
                return Err(format!(
                    "{} AI apps share this server and each has a call in flight, so which one \
                     it is for cannot be told",
                    members.len()
                ));
            }
        }
        Err("no AI app sharing this server has a call in flight that it could be for".into())
    }

    fn server_notification(
        &mut self,
        method: &str,
        message: &Message<'_>,
        line: &[u8],
    ) -> Vec<MuxOut> {
        let to = |members: Vec<Member>| -> Vec<MuxOut> {
            members
                .into_iter()
                .map(|m| MuxOut::Member(m, with_newline(line)))
                .collect()
        };
        match method {
            "notifications/progress" => {
                let pending = progress_token(message.params)
                    .and_then(|t| t.as_u64())
                    .and_then(|ours| self.pending.get(&ours));
                let Some(pending) = pending.filter(|p| self.members.contains(&p.member)) else {
                    return Vec::new();
                };
                let Some(original) = &pending.token else {
                    return Vec::new();
                };
                let mut params: Map<String, Value> = message
                    .params
                    .and_then(|p| serde_json::from_str(p.get()).ok())
                    .unwrap_or_default();
                params.insert("progressToken".into(), original.clone());
                vec![MuxOut::Member(
                    pending.member,
                    notification_line(method, &Value::Object(params)),
                )]
            }
            "notifications/cancelled" => {
                let request = cancelled_request(message.params).map(|(_, r)| r);
                match request.and_then(|r| self.asked_of.remove(&r)) {
                    Some(member) => to(vec![member]),
                    None => Vec::new(),
                }
            }
            "notifications/message" => {
                // A message of no known level is sent to every member.
                let level = level_in(message.params).unwrap_or(LEVELS.len() - 1);
                let unset = if self.sent_level.is_some() {
                    UNSET_LEVEL
                } else {
                    0
                };
                let members = self
                    .members
                    .iter()
                    .filter(|m| level >= self.levels.get(m).copied().unwrap_or(unset))
                    .copied()
                    .collect();
                to(members)
            }
            "notifications/resources/updated" => {
                let uri = subscribed_uri(message.params).unwrap_or_default();
                let members = self
                    .subscribed
                    .get(&uri)
                    .map(|who| who.iter().copied().collect())
                    .unwrap_or_default();
                to(members)
            }
            _ => to(self.members.iter().copied().collect()),
        }
    }
}

/// The progress token in a request's `_meta`, if any.
fn progress_token(params: Option<Raw<'_>>) -> Option<Value> {
    let params = params?;
    memchr::memmem::find(params.get().as_bytes(), b"progressToken")?;
    let [meta, token] = envelope::fields(params, ["_meta", "progressToken"])?;
    if let Some(token) = token {
        // A progress notification carries it at the top.
        return serde_json::from_str(token.get()).ok();
    }
    let meta: Map<String, Value> = serde_json::from_str(meta?.get()).ok()?;
    meta.get("progressToken").cloned()
}

/// A member request's params with its progress token replaced by the
/// mux's id for the request (unique among the server's calls), and the
/// member's token; unchanged (`None`) when it carries none.
fn own_token(params: Option<Raw<'_>>, ours: u64) -> (Option<String>, Option<Value>) {
    let Some(token) = progress_token(params) else {
        return (None, None);
    };
    let Some(mut map) =
        params.and_then(|p| serde_json::from_str::<Map<String, Value>>(p.get()).ok())
    else {
        return (None, None);
    };
    if let Some(Value::Object(meta)) = map.get_mut("_meta") {
        meta.insert("progressToken".into(), json!(ours));
    }
    (Some(Value::Object(map).to_string()), Some(token))
}

#[cfg(test)]
#[path = "mux_tests.rs"]
mod tests;
