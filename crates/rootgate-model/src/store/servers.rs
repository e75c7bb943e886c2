//! The store's servers: adding, editing and removing a server, approving
//! its exact command line, and what Rootgate remembers of how it behaved
//! (whether it follows `list_changed`, the protocol era it spoke, whether
//! Rootgate gave up restarting it).
//!
//! What is not here: where the values of its secret variables go when it
//! is saved (`secrets.rs`, which this calls), and the folders shared with
//! it (`folders.rs`).

use super::{Store, StoreError, find_server};
use crate::ids::ServerId;
use crate::servers::{Era, ServerDraft, ServerSpec};
use crate::tools::{ToolDefault, ToolSeen, ToolSetting};
use std::collections::BTreeMap;

impl Store {
    /// Adds a server. The values of its secret variables are kept first
    /// (in the keyring, or in memory when none is available), so the file
    /// saved names them and holds none.
    pub fn add_server(&self, draft: ServerDraft) -> Result<ServerSpec, StoreError> {
        let id = ServerId::generate();
        let names = self.names_except(&id);
        let spec = draft
            .clone()
            .validate(id.clone(), names.iter().map(String::as_str))?;
        let kept = self.keep_values(spec, None)?;
        let added = self.change(|s| {
            // The names may have changed while the values were kept.
            draft.validate(id.clone(), s.servers.iter().map(|s| s.name.as_str()))?;
            s.servers.push(kept.spec.clone());
            Ok(kept.spec.clone())
        });
        if added.is_err() {
            self.forget_all_values(&kept.spec);
        }
        added
    }

    pub fn update_server(
        &self,
        id: &ServerId,
        mut draft: ServerDraft,
    ) -> Result<ServerSpec, StoreError> {
        let previous = self.server(id)?;
        draft.secret_env = Some(draft.secret_names(Some(&previous)));
        let names = self.names_except(id);
        let spec = draft
            .clone()
            .validate(id.clone(), names.iter().map(String::as_str))?;
        let kept = self.keep_values(spec, Some(&previous))?;
        let updated = self.change(|s| {
            find_server(s, id)?;
            draft.validate(
                id.clone(),
                s.servers
                    .iter()
                    .filter(|s| &s.id != id)
                    .map(|s| s.name.as_str()),
            )?;
            let slot = find_server(s, id)?;
            let mut spec = kept.spec.clone();
            // An approval covers one exact command line (`is_approved`
            // compares them), with secrets by name: an edit that keeps the
            // command line (a rename, enabling, a new value for a secret)
            // stays approved, any other needs a new approval, and the
            // approval dialog can show what changed since the last one.
            spec.approved_command = spec.approval_from(slot);
            // What apps may do with the tools is the person's choice about
            // the server, not part of what they edit in its form.
            spec.tool_rules = slot.tool_rules.clone();
            // What was seen of how the server takes changes is about the
            // program that ran: another command is another program.
            if slot.command_line_with_secrets(|n| spec.secrets.contains_key(n))
                == spec.command_line()
            {
                spec.ignores_list_changed = slot.ignores_list_changed;
                // A new choice of era starts afresh: back to "find out", the
                // server is asked again.
                if slot.era == spec.era {
                    spec.seen_era = slot.seen_era;
                }
            }
            *slot = spec.clone();
            Ok(spec)
        })?;
        self.forget_values(&kept.forget);
        Ok(updated)
    }

    /// The names of every server but `id`.
    fn names_except(&self, id: &ServerId) -> Vec<String> {
        let inner = self.lock();
        inner
            .settings
            .servers
            .iter()
            .filter(|s| &s.id != id)
            .map(|s| s.name.clone())
            .collect()
    }

    /// Records that the person approved running `command_line` for this
    /// server. Refused when it is not the server's current command line (the
    /// person saw something else than what would run).
    pub fn approve_command(
        &self,
        id: &ServerId,
        command_line: &str,
    ) -> Result<ServerSpec, StoreError> {
        self.change(|s| {
            let spec = find_server(s, id)?;
            if spec.command_line() != command_line {
                return Err(StoreError::StaleApproval {
                    shown: command_line.to_owned(),
                    current: spec.command_line(),
                });
            }
            spec.approved_command = Some(command_line.to_owned());
            Ok(spec.clone())
        })
    }

    /// Sets what AI apps may do with the server's tool `tool`, for every
    /// app or for `app` only; `None` takes the setting away (see
    /// `ToolRules::set`).
    pub fn set_tool_setting(
        &self,
        id: &ServerId,
        app: Option<&str>,
        tool: &str,
        setting: Option<ToolSetting>,
    ) -> Result<ServerSpec, StoreError> {
        self.change(|s| {
            let slot = find_server(s, id)?;
            slot.tool_rules.set(app, tool, setting);
            Ok(slot.clone())
        })
    }

    /// Sets what the server's tools without a setting of their own get.
    pub fn set_tool_default(
        &self,
        id: &ServerId,
        default: ToolDefault,
    ) -> Result<ServerSpec, StoreError> {
        self.change(|s| {
            let slot = find_server(s, id)?;
            slot.tool_rules.default = default;
            Ok(slot.clone())
        })
    }

    /// Takes in what a `tools/list` of the server showed (see
    /// `ToolRules::saw`); returns the tools newly found changed. Writes
    /// only when something is new or changed.
    pub fn saw_tools(
        &self,
        id: &ServerId,
        tools: BTreeMap<String, ToolSeen>,
    ) -> Result<Vec<String>, StoreError> {
        let known = self.server(id)?.tool_rules;
        if tools
            .iter()
            .all(|(name, now)| known.seen.get(name).is_some_and(|was| was == now))
        {
            return Ok(Vec::new());
        }
        self.change(|s| Ok(find_server(s, id)?.tool_rules.saw(tools)))
    }

    /// The person has seen how the tool changed (see
    /// `ToolRules::acknowledge`).
    pub fn acknowledge_tool(&self, id: &ServerId, tool: &str) -> Result<ServerSpec, StoreError> {
        self.change(|s| {
            let slot = find_server(s, id)?;
            slot.tool_rules.acknowledge(tool);
            Ok(slot.clone())
        })
    }

    /// Records whether the server was seen to ignore `list_changed` (or
    /// forgets it, with `false`).
    pub fn set_ignores_list_changed(&self, id: &ServerId, ignores: bool) -> Result<(), StoreError> {
        self.set_mark(id, ignores, |s| &mut s.ignores_list_changed)
    }

    /// Records the era a start found for the server (or forgets it, with
    /// `None`, so that its next start finds out again).
    pub fn set_seen_era(&self, id: &ServerId, era: Option<Era>) -> Result<(), StoreError> {
        self.set_mark(id, era, |s| &mut s.seen_era)
    }

    /// Records that Rootgate gave up restarting the server (or forgets it).
    pub fn set_gave_up(&self, id: &ServerId, gave_up: bool) -> Result<(), StoreError> {
        self.set_mark(id, gave_up, |s| &mut s.gave_up)
    }

    /// Sets what `field` reaches of the server `id` (one of the marks its
    /// runs leave: whether it ignores `list_changed`, its era, whether
    /// Rootgate gave up on it) to `value`; when it holds that already,
    /// nothing is saved.
    fn set_mark<T: PartialEq>(
        &self,
        id: &ServerId,
        value: T,
        field: impl Fn(&mut ServerSpec) -> &mut T,
    ) -> Result<(), StoreError> {
        if *field(&mut self.server(id)?) == value {
            return Ok(());
        }
        self.change(|s| {
            *field(find_server(s, id)?) = value;
            Ok(())
        })
    }

    /// Removes a server and every grant to it. Its roots channel closes,
    /// and the values of its secrets are forgotten, in the keyring too.
    pub fn remove_server(&self, id: &ServerId) -> Result<(), StoreError> {
        let removed = self.server(id)?;
        self.change(|s| {
            let before = s.servers.len();
            s.servers.retain(|srv| &srv.id != id);
            if s.servers.len() == before {
                return Err(StoreError::UnknownServer(id.clone()));
            }
            s.grants.retain(|g| &g.server != id);
            Ok(())
        })?;
        self.forget_all_values(&removed);
        Ok(())
    }
}
