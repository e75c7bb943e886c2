//! A modern server's notices, on the 2026-07-28 revision's listen streams:
//! a server of that era says its tools, resources or prompts changed, and
//! that a resource changed, only on a `subscriptions/listen` stream the
//! client opened for them, not as free notifications. Each stream here is a
//! task that passes what it hears to the session's notices, as the legacy
//! handler does (`protocol`), so the window cannot tell the eras apart.
//!
//! One stream for the three lists lives as long as a modern server's running
//! phase (`serve`); one stream per followed resource lives until the window
//! stops following it. What is not here: legacy servers (their notices are
//! the handler's), and deciding anything from what is heard.

use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::notices::{Notice, OfferKind};

/// A listening task, which ends its stream (the server told) when this is
/// dropped. The task is not aborted: it must live long enough to send the
/// cancellation.
pub(crate) struct Listening {
    stop: CancellationToken,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Listens for a modern server's list changes.
pub fn lists(peer: Peer<RoleClient>, notices: broadcast::Sender<Notice>) -> Listening {
    let filter = SubscriptionFilter::builder()
        .tools_list_changed()
        .resources_list_changed()
        .prompts_list_changed()
        .build();
    listen(peer, filter, notices)
}

/// Listens for changes of one resource of a modern server.
pub fn resource(
    peer: Peer<RoleClient>,
    uri: &str,
    notices: broadcast::Sender<Notice>,
) -> Listening {
    let filter = SubscriptionFilter::builder()
        .resource_subscription(uri)
        .build();
    listen(peer, filter, notices)
}

fn listen(
    peer: Peer<RoleClient>,
    filter: SubscriptionFilter,
    notices: broadcast::Sender<Notice>,
) -> Listening {
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    tokio::spawn(async move {
        // A server that refuses to listen offers no such notices; its lists
        // are read again when the window asks.
        let Ok(mut stream) = peer.listen(filter).await else {
            return;
        };
        loop {
            tokio::select! {
                () = stopped.cancelled() => {
                    let _ = stream.cancel().await;
                    return;
                }
                next = stream.next() => match next {
                    Ok(Some(notification)) => {
                        if let Some(notice) = notice_of(notification) {
                            let _ = notices.send(notice);
                        }
                    }
                    // The stream ended (the server closed it, or went).
                    Ok(None) | Err(_) => return,
                },
            }
        }
    });
    Listening { stop }
}

fn notice_of(notification: ServerNotification) -> Option<Notice> {
    match notification {
        ServerNotification::ToolListChangedNotification(_) => {
            Some(Notice::ListChanged(OfferKind::Tools))
        }
        ServerNotification::ResourceListChangedNotification(_) => {
            Some(Notice::ListChanged(OfferKind::Resources))
        }
        ServerNotification::PromptListChangedNotification(_) => {
            Some(Notice::ListChanged(OfferKind::Prompts))
        }
        ServerNotification::ResourceUpdatedNotification(n) => {
            Some(Notice::ResourceUpdated { uri: n.params.uri })
        }
        _ => None,
    }
}
