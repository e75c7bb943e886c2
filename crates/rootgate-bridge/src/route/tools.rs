//! The tools the person hides from AI apps (`ServerSpec::hidden_tools`):
//! left out of the server's `tools/list` answers, a call to one refused
//! before it reaches the server, and a change told to the app as
//! `notifications/tools/list_changed` so it asks for the list again.
//!
//! What this module does not do: decide which tools are hidden (the person
//! does, in the window; the relay hands the set over as the settings
//! change), or touch any other answer: only `tools/list` results are
//! decoded, and only while a tool is hidden.

use super::*;

/// The error code of a call to a hidden tool: the tool is, as far as the
/// app is concerned, not there (JSON-RPC's "invalid params", as an unknown
/// tool's name is answered by the SDKs).
const HIDDEN: i64 = -32602;

impl Router {
    /// The tools hidden from the app, as the settings say now. Once the
    /// app is initialized, a change is told to it, so it lists them again.
    pub fn set_hidden_tools(&mut self, hidden: BTreeSet<String>) -> Vec<Out> {
        if hidden == self.hidden_tools {
            return Vec::new();
        }
        self.hidden_tools = hidden;
        match self.init {
            Init::Received { .. } => vec![Out::App(notification_line(
                "notifications/tools/list_changed",
                &Value::Null,
            ))],
            Init::Waiting => Vec::new(),
        }
    }

    /// The refusal of a `tools/call` whose tool is hidden, with its record
    /// for the timeline; none for any other request.
    pub(super) fn refuse_hidden(
        &self,
        method: &str,
        id_text: &str,
        params: Option<&RawValue>,
    ) -> Option<Vec<Out>> {
        if method != "tools/call" || self.hidden_tools.is_empty() {
            return None;
        }
        let tool = target_of(method, params)?;
        if !self.hidden_tools.contains(&tool) {
            return None;
        }
        let why = format!("the tool “{tool}” is not offered: it is hidden in Rootgate");
        Some(vec![
            Out::App(error_line(id_text, HIDDEN, &why)),
            Out::Call(Call {
                method: method.to_owned(),
                target: Some(tool),
                duration: Duration::ZERO,
                outcome: format!("refused: {why}"),
            }),
        ])
    }

    /// `result` of a `tools/list` without the hidden tools, when any is
    /// hidden and the result lists one; none to pass it on as it came.
    pub(super) fn without_hidden(
        &self,
        method: &str,
        result: Option<&RawValue>,
    ) -> Option<Box<RawValue>> {
        if method != "tools/list" || self.hidden_tools.is_empty() {
            return None;
        }
        let mut result: Map<String, Value> = serde_json::from_str(result?.get()).ok()?;
        let tools = result.get_mut("tools")?.as_array_mut()?;
        let before = tools.len();
        tools.retain(|tool| {
            tool.get("name")
                .and_then(Value::as_str)
                .is_none_or(|name| !self.hidden_tools.contains(name))
        });
        if tools.len() == before {
            return None;
        }
        RawValue::from_string(Value::Object(result).to_string()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn initialized() -> Router {
        let mut router = Router::new();
        let now = Instant::now();
        router.from_app(
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"app","version":"1"}}}"#,
            now,
        );
        router
    }

    fn hide(router: &mut Router, tools: &[&str]) -> Vec<Out> {
        router.set_hidden_tools(tools.iter().map(|t| t.to_string()).collect())
    }

    fn app_lines(outs: &[Out]) -> Vec<Value> {
        outs.iter()
            .filter_map(|o| match o {
                Out::App(line) => serde_json::from_slice(line).ok(),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_hidden_tool_is_left_out_of_the_list_and_its_call_refused() {
        let mut router = initialized();
        assert!(hide(&mut router, &["write_file"]).len() == 1);
        let now = Instant::now();
        let out = router.from_app(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#, now);
        let Some(Out::Server(line)) = out.first() else {
            panic!("tools/list was not passed on: {out:?}");
        };
        let sent: Value = serde_json::from_slice(line).unwrap();
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"tools":[{{"name":"read_file"}},{{"name":"write_file"}}],"nextCursor":"x"}}}}"#,
            sent["id"]
        );
        let out = router.from_server(answer.as_bytes(), now);
        let listed = app_lines(&out);
        assert_eq!(listed[0]["id"], 7);
        assert_eq!(
            listed[0]["result"],
            json!({"tools": [{"name": "read_file"}], "nextCursor": "x"})
        );

        let out = router.from_app(
            br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"write_file","arguments":{}}}"#,
            now,
        );
        assert!(
            !out.iter().any(|o| matches!(o, Out::Server(_))),
            "a hidden tool's call reached the server: {out:?}"
        );
        let refused = app_lines(&out);
        assert_eq!(refused[0]["id"], 8);
        assert_eq!(refused[0]["error"]["code"], -32602);
        assert!(
            refused[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("“write_file” is not offered")
        );
        assert!(
            out.iter()
                .any(|o| matches!(o, Out::Call(c) if c.outcome.starts_with("refused")))
        );
        // Another tool still goes through.
        let out = router.from_app(
            br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_file"}}"#,
            now,
        );
        assert!(matches!(out.first(), Some(Out::Server(_))), "{out:?}");
    }

    #[test]
    fn a_change_is_told_to_an_initialized_app_once_and_nothing_before() {
        let mut before = Router::new();
        assert!(hide(&mut before, &["x"]).is_empty(), "no app to tell yet");
        let mut router = initialized();
        let told = app_lines(&hide(&mut router, &["x"]));
        assert_eq!(
            told,
            [json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})]
        );
        assert!(hide(&mut router, &["x"]).is_empty(), "nothing changed");
        assert_eq!(app_lines(&hide(&mut router, &[])).len(), 1, "shown again");
    }

    #[test]
    fn with_nothing_hidden_the_list_passes_as_it_came() {
        let router = initialized();
        let raw = RawValue::from_string(r#"{"tools":[{"name":"a"}]}"#.into()).unwrap();
        assert!(router.without_hidden("tools/list", Some(&raw)).is_none());
    }
}
