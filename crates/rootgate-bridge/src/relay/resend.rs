//! The relay's side of a restart made to change the server's folders
//! (see `route::resend` for which requests go to the new start and why):
//! an app request is marked handed to a life at the moment its line is
//! put on that life's wire, under the state's lock, so a restart sees it
//! either before (not handed: kept, and its holder sends it to the next
//! life) or after (handed: failed, or sent again if it only reads), never
//! in between; and the restart itself ([`Relay::restarting`]).
//!
//! What is not here: which requests wait for a life and why (the hold, the
//! fence, `to_ready_server`), and the router's bookkeeping.

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Frame, Out, Relay};
use crate::route::request_id;

impl Relay {
    /// Puts `line` on the wire `frames`, if that is still the attached
    /// life's, marking the app request it carries as handed; gives the
    /// line back otherwise (the life ended under it), for the next life.
    /// A request already answered (with why its life went) is dropped.
    pub(super) async fn hand_to(
        &self,
        frames: &mpsc::Sender<Frame>,
        line: Vec<u8>,
    ) -> Result<(), Vec<u8>> {
        let permit = match frames.try_reserve() {
            Ok(permit) => permit,
            Err(mpsc::error::TrySendError::Closed(())) => return Err(line),
            Err(mpsc::error::TrySendError::Full(())) => match frames.reserve().await {
                Ok(permit) => permit,
                Err(_) => return Err(line),
            },
        };
        let mut state = self.lock();
        if !state
            .attached
            .as_ref()
            .is_some_and(|attached| attached.same_channel(frames))
        {
            return Err(line);
        }
        // A life being left takes no new request; what else the app says
        // (a cancellation, an answer to the server) is still for it.
        if state.draining && request_id(&line).is_some() {
            return Err(line);
        }
        if let Some(ours) = request_id(&line) {
            // Answered already (the life it waited for went, and it was
            // told why): the server must not do it after all.
            if !state.router.awaits(ours) {
                return Ok(());
            }
            state.router.handed(ours);
        }
        permit.send(Frame::Lines(line));
        Ok(())
    }

    /// A line for the life whose output caused it (`frames`): on its wire
    /// while it is attached; an app request kept for the next life when
    /// this one ended under it (see [`Relay::restarting`]) goes to that
    /// one instead, on a task of its own (the ended life's reader is about
    /// to be stopped); anything else was for that life only, and goes with
    /// it.
    pub(super) async fn to_life(&self, frames: &mpsc::Sender<Frame>, line: Vec<u8>) {
        let Err(line) = self.hand_to(frames, line).await else {
            return;
        };
        let kept = request_id(&line).is_some_and(|ours| self.lock().router.waits_for_a_life(ours));
        if kept && let Some(relay) = self.me.upgrade() {
            tokio::spawn(async move { relay.to_ready_server(line).await });
        }
    }

    /// The life `life` is being stopped by Rootgate to start the server
    /// again with other folders: as [`Relay::detach`], except that the
    /// app's requests the next start can serve wait for it (see
    /// `route::resend`).
    pub async fn restarting(&self, life: u64, why: &str) {
        self.end_life(life, |router, now| router.server_restarting(why, now))
            .await;
    }

    /// The connection is about to leave its life for another that goes on
    /// running (a Workspace connection to a shared server moving to its
    /// project's: `shared`): no new request is handed to it, and this
    /// waits, until `by` at most, for the ones it has to be answered, so
    /// that a move costs no call its life could still finish, nor the
    /// app's `initialize` if it is not answered yet. New requests
    /// wait for the next life, as across a restart.
    pub(crate) async fn drain(&self, by: tokio::time::Instant) {
        self.lock().draining = true;
        loop {
            let answered = self.answered.notified();
            tokio::pin!(answered);
            answered.as_mut().enable();
            // Its app's `initialize` too, when the app says its project
            // before the life has answered it (an app without roots says
            // it with its working folder at once).
            let drained = {
                let state = self.lock();
                state.router.handed_in_flight() == 0 && state.init_waiter.is_none()
            };
            if drained {
                return;
            }
            tokio::select! {
                () = answered => {}
                () = tokio::time::sleep_until(by) => return,
            }
        }
    }

    /// No life can start: the requests kept for one (see
    /// [`Relay::restarting`]) get `why` rather than wait for nothing.
    pub(super) fn fail_kept(&self, why: &str) -> Vec<Out> {
        self.lock().router.server_gone(why, Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::Value;
    use tokio::io::AsyncWriteExt;
    use tokio::sync::{mpsc, watch};
    use tokio_util::sync::CancellationToken;

    use super::*;
    use rootgate_model::consent::SharedRoots;
    use rootgate_model::ids::ServerId;
    use rootgate_model::servers::Era;
    use rootgate_model::timeline::Timeline;
    use rootgate_session::wire::Wire;

    /// A server life of the test's own: what the relay writes to it, and
    /// where the test writes as the server.
    struct Life {
        number: u64,
        written: mpsc::Receiver<Frame>,
        output: tokio::io::DuplexStream,
    }

    fn attach(relay: &Arc<Relay>, roots: &watch::Sender<SharedRoots>) -> Life {
        let (frames, written) = mpsc::channel(16);
        let wire = Wire {
            frames,
            closed: CancellationToken::new(),
        };
        let (output, stdout) = tokio::io::duplex(64 * 1024);
        let attached = relay.attach(stdout, &wire, Era::Legacy, roots.subscribe());
        Life {
            number: attached.life,
            written,
            output,
        }
    }

    /// The next line the relay wrote to `life`, as JSON.
    async fn next_line(life: &mut Life) -> Value {
        match life.written.recv().await {
            Some(Frame::Lines(line)) => serde_json::from_slice(&line).expect("JSON"),
            _ => panic!("no line"),
        }
    }

    async fn answer(out: &mut mpsc::Receiver<Vec<u8>>) -> Value {
        serde_json::from_slice(&out.recv().await.expect("an answer")).expect("JSON")
    }

    /// A relay, the app's end of it and what it writes to the app, and a
    /// first life that has answered the app's `initialize`.
    struct Opened {
        relay: Arc<Relay>,
        app: tokio::io::DuplexStream,
        out: mpsc::Receiver<Vec<u8>>,
        roots: watch::Sender<SharedRoots>,
        first: Life,
    }

    async fn opened() -> Opened {
        let (out_tx, mut out) = mpsc::channel(16);
        let relay = Relay::new(ServerId::generate(), Arc::new(Timeline::default()), out_tx);
        let (mut app, app_in) = tokio::io::duplex(64 * 1024);
        let reader = Arc::clone(&relay);
        tokio::spawn(async move { reader.read_app(app_in).await });
        let roots = watch::Sender::new(SharedRoots::empty());

        let mut first = attach(&relay, &roots);
        app.write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n",
        )
        .await
        .expect("write");
        let init = next_line(&mut first).await;
        let result = serde_json::json!({"jsonrpc": "2.0", "id": init["id"], "result": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
        first
            .output
            .write_all(format!("{result}\n").as_bytes())
            .await
            .expect("write");
        assert_eq!(answer(&mut out).await["id"], 1);
        Opened {
            relay,
            app,
            out,
            roots,
            first,
        }
    }

    /// A call that waits for a ready life when Rootgate stops the server to
    /// change its folders was never written: it is not failed, and the next
    /// life gets it once, after what it must be told again.
    #[tokio::test]
    async fn a_call_not_yet_written_when_the_server_restarts_for_folders_goes_to_the_next_life() {
        let Opened {
            relay,
            mut app,
            mut out,
            roots,
            first,
        } = opened().await;

        // The session has not been told the first life answered (it is not
        // ready): the call waits for it, unwritten.
        let mut seen = relay.subscribe();
        app.write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"write_file\",\"arguments\":{}}}\n",
        )
        .await
        .expect("write");
        seen.wait_for(|s| s.waiting.is_some()).await.expect("waits");
        relay
            .restarting(
                first.number,
                "the server was stopped by Rootgate before it answered",
            )
            .await;
        // The first life's own end comes after, and fails nothing more.
        relay.detach(first.number, "the server stopped").await;
        assert!(out.try_recv().is_err(), "nothing answered yet");

        let mut next = attach(&relay, &roots);
        relay.ready(next.number, true).await;
        let mut calls = Vec::new();
        let mut methods = Vec::new();
        while calls.is_empty() {
            let line = next_line(&mut next).await;
            let method = line["method"].as_str().unwrap_or_default().to_owned();
            if method == "tools/call" {
                calls.push(line.clone());
            }
            methods.push(method);
        }
        // What the new start must be told again goes first (its
        // `initialize` is sent on a task of its own, so it is left out).
        methods.retain(|m| m != "initialize");
        assert_eq!(methods, vec!["notifications/initialized", "tools/call"]);
        let result =
            serde_json::json!({"jsonrpc": "2.0", "id": calls[0]["id"], "result": {"content": []}});
        next.output
            .write_all(format!("{result}\n").as_bytes())
            .await
            .expect("write");
        let got = answer(&mut out).await;
        assert_eq!(got["id"], 2, "{got}");
        assert!(got.get("result").is_some(), "{got}");
        while let Ok(Frame::Lines(line)) = next.written.try_recv() {
            let line = String::from_utf8_lossy(&line).into_owned();
            assert!(!line.contains("tools/call"), "sent once: {line}");
        }
    }

    /// A connection moving to another life (`shared`) lets the life it
    /// leaves finish the call it handed it: a `write_file` in flight is
    /// answered there, not failed; a call the app makes meanwhile is not
    /// handed to that life, and goes to the next, once.
    #[tokio::test]
    async fn a_move_lets_the_life_left_answer_its_call_and_hands_new_calls_to_the_next() {
        let Opened {
            relay,
            mut app,
            mut out,
            roots,
            mut first,
        } = opened().await;
        relay.ready(first.number, false).await;

        // A call that may write, handed to the first life.
        app.write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"write_file\",\"arguments\":{}}}\n",
        )
        .await
        .expect("write");
        let handed = next_line(&mut first).await;
        assert_eq!(handed["method"], "tools/call");

        // The move begins: the drain waits for that call's answer.
        let draining = Arc::clone(&relay);
        let drained = tokio::spawn(async move {
            draining
                .drain(tokio::time::Instant::now() + std::time::Duration::from_secs(30))
                .await;
        });
        // A second call made meanwhile is not the leaving life's.
        app.write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\",\"arguments\":{}}}\n",
        )
        .await
        .expect("write");
        // Read by the relay: both calls are in flight (yielding to its
        // reader, on this test's one thread).
        while relay.lock().router.in_flight() < 2 {
            tokio::task::yield_now().await;
        }
        assert!(!drained.is_finished(), "a call is still in flight");
        let result =
            serde_json::json!({"jsonrpc": "2.0", "id": handed["id"], "result": {"content": []}});
        first
            .output
            .write_all(format!("{result}\n").as_bytes())
            .await
            .expect("write");
        let got = answer(&mut out).await;
        assert_eq!(got["id"], 2, "{got}");
        assert!(
            got.get("result").is_some(),
            "answered by the life left: {got}"
        );
        drained.await.expect("drained");
        relay.restarting(first.number, "moved").await;
        while let Ok(Frame::Lines(line)) = first.written.try_recv() {
            let line = String::from_utf8_lossy(&line).into_owned();
            assert!(
                !line.contains("read_file"),
                "not handed to the life left: {line}"
            );
        }

        let mut next = attach(&relay, &roots);
        relay.ready(next.number, true).await;
        let call = loop {
            let line = next_line(&mut next).await;
            if line["method"] == "tools/call" {
                break line;
            }
        };
        assert_eq!(call["params"]["name"], "read_file");
        let result =
            serde_json::json!({"jsonrpc": "2.0", "id": call["id"], "result": {"content": []}});
        next.output
            .write_all(format!("{result}\n").as_bytes())
            .await
            .expect("write");
        let got = answer(&mut out).await;
        assert_eq!(got["id"], 3, "{got}");
    }
}
