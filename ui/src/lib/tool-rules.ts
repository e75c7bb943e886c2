// The person's rules for a server's tools (issue #29), read for showing:
// what a tool gets for every app and for one app, and why, in the words
// the window uses; which apps have a setting of their own for a tool; and
// a waiting call's time left. The judging mirrors the core's
// `ToolRules::judge` (crates/rootgate-model/src/tools.rs), so that what the
// Tools tab says a tool gets is what the bridge does with a call to it.
//
// Pure, so every case is unit tested. Not here: changing the rules (the
// servers' state calls the backend), holding or asking about a call (the
// bridge and the core), or anything that renders.

import type { ToolDefault, ToolRules, ToolSetting } from "./bindings";

/** What a server without rules of its own has: every tool allowed. */
export const NO_RULES: ToolRules = { default: "allAllowed" };

/** A setting in the words of its choice. */
export function settingLabel(setting: ToolSetting): string {
  switch (setting) {
    case "allowed":
      return "Allowed";
    case "ask":
      return "Ask each time";
    case "hidden":
      return "Hidden";
  }
}

/** A server default in the words of its choice. */
export function defaultLabel(d: ToolDefault): string {
  return d === "allAllowed" ? "Every tool allowed" : "Read-only tools allowed, the rest ask";
}

export interface Judged {
  setting: ToolSetting;
  /** Why, as a clause: "it says it only reads". */
  why: string;
}

/**
 * What the server's default gives `tool`, knowing whether it says it only
 * reads (its `readOnlyHint`; undefined when the window has not seen its
 * annotations, then the one Rootgate kept is used, as the core does).
 */
export function defaultGives(rules: ToolRules, tool: string, readOnly?: boolean): Judged {
  const ro = readOnly ?? rules.seen?.[tool]?.readOnly ?? false;
  if (rules.default === "allAllowed") return { setting: "allowed", why: "every tool of this server is allowed" };
  return ro
    ? { setting: "allowed", why: "it says it only reads" }
    : { setting: "ask", why: "it does not say it only reads" };
}

/**
 * What a call of `tool` by `app` (null: an app without a setting of its
 * own) gets, and why: the app's own setting, the tool's, and the server's
 * default, in that order; a changed tool is asked unless it is hidden
 * (hidden stays hidden).
 */
export function judge(rules: ToolRules, app: string | null, tool: string, readOnly?: boolean): Judged {
  const set = settingOf(rules, app, tool, readOnly);
  if (rules.changed?.includes(tool) && set.setting !== "hidden") {
    return { setting: "ask", why: "changed since you last saw it" };
  }
  return set;
}

function settingOf(rules: ToolRules, app: string | null, tool: string, readOnly?: boolean): Judged {
  const forApp = app === null ? undefined : rules.apps?.[app]?.[tool];
  if (forApp) return { setting: forApp, why: `set for ${app}` };
  const forTool = rules.tools?.[tool];
  if (forTool) return { setting: forTool, why: "set for this tool" };
  return defaultGives(rules, tool, readOnly);
}

/** The apps with a setting of their own for `tool`, by name. */
export function appSettings(rules: ToolRules, tool: string): { app: string; setting: ToolSetting }[] {
  const out: { app: string; setting: ToolSetting }[] = [];
  for (const [app, tools] of Object.entries(rules.apps ?? {})) {
    const setting = tools?.[tool];
    if (setting) out.push({ app, setting });
  }
  return out.sort((a, b) => a.app.localeCompare(b.app));
}

/** A tool's mark in the Tools tab's list, for an app without a setting of its own; none when it is simply allowed. */
export interface ListMark {
  text: "changed" | "hidden" | "ask";
  tone: "warn" | "neutral" | "info";
  title: string;
}

/** What marks `tool` in the list: changed (asked until looked at), hidden, or asked about. */
export function listMark(rules: ToolRules, tool: string, readOnly?: boolean): ListMark | null {
  if (isChanged(rules, tool)) {
    return { text: "changed", tone: "warn", title: "Changed since Rootgate last saw it: calls are asked until you look" };
  }
  const setting = judge(rules, null, tool, readOnly).setting;
  if (setting === "hidden") return { text: "hidden", tone: "neutral", title: "Hidden from AI apps" };
  if (setting === "ask") return { text: "ask", tone: "info", title: "AI apps' calls wait for your answer" };
  return null;
}

/** Whether `tool` changed since the person last looked (so each call is asked). */
export function isChanged(rules: ToolRules, tool: string): boolean {
  return rules.changed?.includes(tool) ?? false;
}

/** Whole seconds left until `untilMs` at `nowMs`, never below zero (rounded up: "1 s" until it is over). */
export function secondsLeft(untilMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((untilMs - nowMs) / 1000));
}

/**
 * `value` as JSON with every object's keys in order, indented by two
 * spaces: how the core keeps a tool's schema (serde_json's pretty form of
 * sorted keys), so that the window's own copy diffs cleanly against it.
 */
export function sortedJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v === "object" && v !== null) {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value ?? null), null, 2);
}
