//! The JSON-RPC envelope of one line: its `jsonrpc`, `id`, `method`,
//! `params`, `result` and `error`, with every payload kept as the raw JSON
//! text it came as ([`Raw`]).
//!
//! A line is read by a scanner of its own before serde: it checks the whole
//! line as JSON, as serde does, but finds the end of a string with `memchr`
//! and checks its bytes for control characters in blocks the compiler
//! vectorises, where serde looks at eight bytes at a time. For a megabyte
//! result that is most of what the bridge did with it (BENCHMARKS.md, "The
//! envelope read by a scanner of its own"). Anything the scanner does not
//! take plainly (not an object, a key or a `jsonrpc`/`method` string with
//! escapes, a field twice, a field of the wrong type, anything that is not
//! JSON) goes to serde instead, so that what is accepted, and the error for
//! what is not, stay serde's.
//!
//! What is not here: what a message means (the router) and whether the
//! line is UTF-8 (checked before, by the router).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// A JSON value's text, exactly as it came: checked to be JSON, never
/// decoded or re-encoded, so it passes on as it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Raw<'a>(&'a str);

impl<'a> Raw<'a> {
    /// The value's JSON text.
    pub(super) fn get(self) -> &'a str {
        self.0
    }

    /// The value, owned, to be kept past the line it came in.
    pub(super) fn to_owned_raw(self) -> Box<RawValue> {
        // Checked JSON, so the conversion cannot fail; `null` stands in if
        // it ever did, rather than a panic in the bridge.
        RawValue::from_string(self.0.to_owned()).unwrap_or_default()
    }
}

impl<'a> From<&'a RawValue> for Raw<'a> {
    fn from(raw: &'a RawValue) -> Self {
        Raw(raw.get())
    }
}

/// A JSON-RPC message with its parts kept raw. A part that is absent or
/// `null` is `None`, as serde reads an `Option`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Message<'a> {
    pub jsonrpc: Option<Cow<'a, str>>,
    pub id: Option<Raw<'a>>,
    pub method: Option<Cow<'a, str>>,
    pub params: Option<Raw<'a>>,
    pub result: Option<Raw<'a>>,
    pub error: Option<Raw<'a>>,
}

/// The same message as serde reads it, for the lines the scanner leaves to
/// serde.
#[derive(Deserialize)]
struct SerdeMessage<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

/// Reads one line's envelope, or says why it is not JSON-RPC-shaped JSON
/// in serde's words.
pub(super) fn parse(text: &str) -> Result<Message<'_>, serde_json::Error> {
    match scan(text) {
        Some(message) => Ok(message),
        None => by_serde(text),
    }
}

/// serde's reading of a line, for what the scanner leaves to it.
fn by_serde(text: &str) -> Result<Message<'_>, serde_json::Error> {
    let m: SerdeMessage = serde_json::from_str(text)?;
    Ok(Message {
        jsonrpc: m.jsonrpc,
        id: m.id.map(Raw::from),
        method: m.method,
        params: m.params.map(Raw::from),
        result: m.result.map(Raw::from),
        error: m.error.map(Raw::from),
    })
}

/// The fast reading: `None` for anything it does not take plainly.
fn scan(text: &str) -> Option<Message<'_>> {
    let mut message = Message::default();
    let mut seen = 0u8;
    each_field(text, |key, value| {
        let field = match key {
            r#""jsonrpc""# => 0,
            r#""id""# => 1,
            r#""method""# => 2,
            r#""params""# => 3,
            r#""result""# => 4,
            r#""error""# => 5,
            // A key with an escape may spell one of these: serde decodes
            // it. Any other key is skipped, as serde does.
            key if key.contains('\\') => return None,
            _ => return Some(()),
        };
        // A field twice is an error of serde's own words.
        if seen & (1 << field) != 0 {
            return None;
        }
        seen |= 1 << field;
        let raw = (value != "null").then_some(Raw(value));
        match field {
            0 => message.jsonrpc = plain_string(raw)?,
            1 => message.id = raw,
            2 => message.method = plain_string(raw)?,
            3 => message.params = raw,
            4 => message.result = raw,
            _ => message.error = raw,
        }
        Some(())
    })?;
    Some(message)
}

/// The text of the top-level fields of a JSON object that the router
/// reads a few of (a result's `resultType`, say), without reading the rest,
/// as serde reads them into a struct of `Option`s: absent or `null` is
/// `None`, and a key written with escapes is decoded first. `None` for all
/// when `object` is not an object or names one of them twice.
pub(super) fn fields<'a, const N: usize>(
    object: Raw<'a>,
    names: [&str; N],
) -> Option<[Option<Raw<'a>>; N]> {
    let mut found = [None; N];
    let mut seen = [false; N];
    each_field(object.0, |quoted, value| {
        // Decoded as `JSON.parse` decodes it: serde refuses a key that
        // names an unpaired surrogate (`"\ude00"`), and stopping there made
        // the fields read as absent, so a call's tool went unjudged (found
        // by the fuzz target `one_reading`).
        if let Some(at) = names.iter().position(|n| super::keys::key_is(quoted, n)) {
            if std::mem::replace(&mut seen[at], true) {
                return None;
            }
            found[at] = (value != "null").then_some(Raw(value));
        }
        Some(())
    })?;
    Some(found)
}

/// Calls `f` with each key (as written: quoted, escapes and all) and value
/// text of the JSON object that is the whole of `text`; `None` when `text`
/// is not one or `f` says to stop.
pub(super) fn each_field<'a>(
    text: &'a str,
    mut f: impl FnMut(&str, &'a str) -> Option<()>,
) -> Option<()> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        i += 1;
    } else {
        loop {
            let (quoted_end, colon_end) = key_span(b, i)?;
            let start = skip_ws(b, colon_end);
            let end = value_end(b, start)?;
            // Every end here sits next to an ASCII byte, so it is a char
            // boundary; `get` keeps it from ever being a panic.
            f(text.get(i..quoted_end)?, text.get(start..end)?)?;
            i = skip_ws(b, end);
            match b.get(i) {
                Some(b',') => i = skip_ws(b, i + 1),
                Some(b'}') => {
                    i += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    (skip_ws(b, i) == b.len()).then_some(())
}

/// A string field's text when it needs no decoding; `Some(None)` for an
/// absent one, `None` (leave it to serde) for escapes or another type.
fn plain_string(raw: Option<Raw<'_>>) -> Option<Option<Cow<'_, str>>> {
    let Some(raw) = raw else {
        return Some(None);
    };
    let inner = raw.0.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        return None;
    }
    Some(Some(Cow::Borrowed(inner)))
}

pub(super) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// Where the JSON value at `i` ends, if it is one. Nesting is kept on a
/// stack of its own, not in recursion, so a deep value cannot overflow the
/// bridge's stack (serde skips values the same way, without a depth limit).
fn value_end(b: &[u8], mut i: usize) -> Option<usize> {
    let mut open: Vec<u8> = Vec::new();
    loop {
        i = skip_ws(b, i);
        match *b.get(i)? {
            b'"' => i = string_end(b, i + 1)?,
            c @ (b'{' | b'[') => {
                i = skip_ws(b, i + 1);
                let close = if c == b'{' { b'}' } else { b']' };
                if b.get(i) == Some(&close) {
                    i += 1;
                } else {
                    open.push(c);
                    if c == b'{' {
                        i = key_end(b, i)?;
                    }
                    continue;
                }
            }
            b't' => i = literal_end(b, i, b"true")?,
            b'f' => i = literal_end(b, i, b"false")?,
            b'n' => i = literal_end(b, i, b"null")?,
            b'-' | b'0'..=b'9' => i = number_end(b, i)?,
            _ => return None,
        }
        // After a value: the containers it closes, then the next value.
        loop {
            let Some(&c) = open.last() else {
                return Some(i);
            };
            i = skip_ws(b, i);
            match (*b.get(i)?, c) {
                (b',', b'{') => {
                    i = key_end(b, skip_ws(b, i + 1))?;
                    break;
                }
                (b',', _) => {
                    i += 1;
                    break;
                }
                (b'}', b'{') | (b']', b'[') => {
                    open.pop();
                    i += 1;
                }
                _ => return None,
            }
        }
    }
}

/// Past an object's key and its colon, from the key's opening quote.
fn key_end(b: &[u8], i: usize) -> Option<usize> {
    key_span(b, i).map(|(_, colon_end)| colon_end)
}

/// Past an object's key (its closing quote) and past its colon, from the
/// key's opening quote.
fn key_span(b: &[u8], i: usize) -> Option<(usize, usize)> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let quoted_end = string_end(b, i + 1)?;
    let colon = skip_ws(b, quoted_end);
    (b.get(colon) == Some(&b':')).then_some((quoted_end, colon + 1))
}

/// Past a string's closing quote, from just after its opening one. The
/// escapes are checked as serde checks them (a known letter, or `u` and
/// four hex digits), and no byte may be a control character.
pub(super) fn string_end(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        let rest = b.get(i..)?;
        let n = memchr::memchr2(b'"', b'\\', rest)?;
        if has_control(&rest[..n]) {
            return None;
        }
        i += n;
        if b[i] == b'"' {
            return Some(i + 1);
        }
        match *b.get(i + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
            b'u' => {
                if !b.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                i += 6;
            }
            _ => return None,
        }
    }
}

/// Whether any byte is below 0x20. Folded in blocks without an early exit
/// inside one, which the compiler turns into vector compares.
fn has_control(bytes: &[u8]) -> bool {
    bytes
        .chunks(64)
        .any(|block| block.iter().fold(false, |any, &c| any | (c < 0x20)))
}

pub(super) fn literal_end(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (b.get(i..i + word.len())? == word).then_some(i + word.len())
}

/// Past a number as JSON writes it: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
pub(super) fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |b: &[u8], mut i: usize| {
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    i = match b.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(b, i)?,
        _ => return None,
    };
    if b.get(i) == Some(&b'.') {
        i = digits(b, i + 1)?;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        i = digits(b, i)?;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scanner never takes a line serde refuses, and reads every line
    /// it takes exactly as serde does.
    fn agrees(text: &str) -> bool {
        match (scan(text), by_serde(text).map_err(|e| e.to_string())) {
            (Some(fast), Ok(slow)) => {
                assert_eq!(fast, slow, "read apart: {text:?}");
                true
            }
            (Some(fast), Err(e)) => panic!("took {text:?} as {fast:?}; serde: {e}"),
            (None, _) => false,
        }
    }

    const TAKEN: &[&str] = &[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
        r#"{"result":{"content":[{"type":"text","text":"a\"b\\c\u00e9\n"}],"isError":false},"jsonrpc":"2.0","id":7}"#,
        r#" { "jsonrpc" : "2.0" , "id" : "abc" , "error" : { "code" : -32601 , "message" : "no" } } "#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":null,"result":null,"params":null,"method":null}"#,
        r#"{"jsonrpc":"2.0","id":-0.5e+10,"result":[1,-2.25,3E3,true,false,null,{},[],{"a":[{}]}]}"#,
        r#"{"jsonrpc":"2.0","id":0,"result":{"x":"é ü 日本 🙂"},"extra":{"deep":[[[["x"]]]]}}"#,
        "{}",
        "{\"jsonrpc\":\"2.0\",\t\"id\":1,\r\n\"result\":{}}",
    ];

    #[test]
    fn plain_lines_are_read_as_serde_reads_them() {
        for text in TAKEN {
            assert!(agrees(text), "left to serde: {text}");
        }
    }

    #[test]
    fn what_it_does_not_take_plainly_is_serdes() {
        for text in [
            // Serde's own quirks and errors, kept by leaving them to it.
            r#"["2.0",1,"ping"]"#,
            r#"{"json\u0072pc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"to\u006fls/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            r#"{"jsonrpc":2,"id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"result":"a"#,
            r#"{"jsonrpc":"2.0","id":1,"result":"tab	inside"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":"bad \x escape"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":"\u12G4"}"#,
            r#"{"jsonrpc":"2.0","id":01,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"a":1,}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":[1 2]}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"a" 1}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"a":1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":tru}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}"#,
            r#"{"jsonrpc":"2.0","id":1,}"#,
            "",
            "  ",
        ] {
            assert!(!agrees(text), "taken: {text}");
            // And what serde then says is what `parse` says.
            assert_eq!(
                parse(text).map_err(|e| e.to_string()),
                by_serde(text).map_err(|e| e.to_string()),
                "{text}"
            );
        }
    }

    #[test]
    fn a_megabyte_string_result_is_taken_whole() {
        let text = format!(
            r#"{{"result":{{"content":[{{"type":"text","text":"{}"}}]}},"jsonrpc":"2.0","id":3}}"#,
            "x".repeat(1 << 20)
        );
        assert!(agrees(&text));
        let m = parse(&text).expect("read");
        assert_eq!(m.result.map(|r| r.get().len()), Some((1 << 20) + 39));
        // A control character anywhere in it, even the last byte of a
        // block, is refused as serde refuses it.
        for at in [0, 63, 64, 1 << 19, (1 << 20) - 1] {
            let mut bad = text.clone().into_bytes();
            bad[45 + at] = 0x1f;
            let bad = String::from_utf8(bad).expect("ASCII");
            assert!(!agrees(&bad), "control at {at} taken");
            assert!(parse(&bad).is_err());
        }
    }

    #[test]
    fn a_few_fields_are_read_without_the_rest() {
        let object =
            Raw(r#"{"content":[{"text":"x\"y"}],"resultType":"input_required","ttlMs":null}"#);
        let [kind, ttl, scope] =
            fields(object, ["resultType", "ttlMs", "cacheScope"]).expect("an object");
        assert_eq!(kind.map(Raw::get), Some(r#""input_required""#));
        assert_eq!((ttl, scope), (None, None));
        assert_eq!(fields(Raw("[1]"), ["resultType"]), None);
        assert_eq!(fields(Raw(r#"{"a":1,"a":2}"#), ["a"]), None);
        assert_eq!(fields(Raw(r#"{"a":1,"a":2}"#), ["b"]), Some([None]));
        // A key written with escapes is the key it spells, as for serde.
        let escaped = Raw(r#"{"result\u0054ype":"input_required"}"#);
        assert_eq!(
            fields(escaped, ["resultType"]),
            Some([Some(Raw(r#""input_required""#))])
        );
        // A key naming an unpaired surrogate is a key like any other: the
        // fields after it are still read.
        let lone = Raw(r#"{"\ude00":1,"x\ud800y":2,"resultType":"complete"}"#);
        assert_eq!(
            fields(lone, ["resultType"]),
            Some([Some(Raw(r#""complete""#))])
        );
    }

    #[test]
    fn nesting_far_deeper_than_a_stack_allows_is_no_crash() {
        let depth = 1_000_000;
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{}{}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        assert!(agrees(&text));
    }

    /// Every line of a family of small changes to the lines it takes: the
    /// scanner and serde never disagree on one it takes, and it never
    /// takes one serde refuses.
    #[test]
    fn no_change_to_a_line_makes_the_two_disagree() {
        let alphabet = b"{}[]\":,\\ \t0123456789-+.eEtrufalsn\x01ux\xc3\xa9";
        let mut taken = 0;
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for text in TAKEN {
            for _ in 0..4000 {
                let mut bytes = text.as_bytes().to_vec();
                for _ in 0..=next(3) {
                    let at = next(bytes.len() + 1);
                    match next(3) {
                        0 if at < bytes.len() => {
                            bytes.remove(at);
                        }
                        1 if at < bytes.len() => bytes[at] = alphabet[next(alphabet.len())],
                        _ => bytes.insert(at, alphabet[next(alphabet.len())]),
                    }
                }
                // The router checks UTF-8 before; so does this.
                if let Ok(text) = std::str::from_utf8(&bytes) {
                    taken += usize::from(agrees(text));
                }
            }
        }
        // Many changed lines are still JSON-RPC: the check above ran on
        // lines the scanner took, not only on ones it left to serde.
        assert!(taken > 1000, "only {taken} changed lines taken");
    }
}
