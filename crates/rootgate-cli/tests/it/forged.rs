//! Answers only from the person (#39), tried as the attacker
//! tried them: another program on the same session bus sends
//! `org.freedesktop.Notifications.ActionInvoked` with every id from 1 to
//! 30, with the old keys (`share`, `tool-always`) and with the real key
//! copied off the screen (and `NotificationClosed` for every id), while a
//! question waits on a real notification daemon (dunst, on a bus and
//! display of the test's own); and a program
//! that takes the notification server's name after dunst is gone answers
//! the question dunst showed. None of it answers; the person's own press
//! in dunst, after all of it, does.
//!
//! The press is also what tells the test that every forged signal was
//! judged: the bus delivers the signals of one program in order and each
//! forger is done sending before the press, so Rootgate reads them all
//! before dunst's answer. Asserting after the person's answer is
//! asserting after the forgeries, with no waiting on a clock.

use rootgate_core::questions::Answer;
use rootgate_test_support::desktop::actions_on_screen;

use super::asked::{asking_setup, claude_code_in, first_allowed, question_on_screen};
use super::tool_asks::{asking_app, notification, write};

/// The key dunst was given for the button `label`, off its menu.
fn key_of(menu: &[String], label: &str) -> (u32, String) {
    actions_on_screen(menu)
        .into_iter()
        .find(|(l, ..)| l == label)
        .map(|(_, id, key)| (id, key))
        .unwrap_or_else(|| panic!("{label} in {menu:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_share_forged_by_another_program_shares_nothing_and_the_persons_answer_counts() {
    let (desktop, s) = asking_setup().await;
    let app = claude_code_in(&s.rg, &s.project);
    let menu = question_on_screen(&desktop).await;
    let (id, share) = key_of(&menu, "Share");
    let (_, not_now) = key_of(&menu, "Not now");
    assert!(id <= 30, "the question's id is among those tried");

    for n in 1..=30 {
        for key in ["share", share.as_str(), "not-now", not_now.as_str()] {
            desktop.forge(n, key);
        }
        // A forged close would send the question to the window unanswered.
        desktop.forge_closed(n);
    }
    // The person answers on dunst: Not now.
    desktop.press("Not now");

    let app = app.await.expect("the app");
    assert_eq!(
        first_allowed(&app.connected),
        vec![s.shared.clone()],
        "a forged Share reached the server"
    );
    let asked = s.sup.questions().list();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].answer, Some(Answer::NotNow), "{asked:?}");
    assert!(
        !s.sup
            .folders()
            .list()
            .iter()
            .any(|f| f.root.real_path == s.project),
        "the folder was shared"
    );
    // The key was made for this notification: not the bare word another
    // program would guess.
    assert_ne!(share, "share");
    assert!(share.len() > "share-".len() + 30, "{share}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_always_runs_no_call_and_keeps_no_rule_while_the_persons_deny_counts() {
    let (desktop, s) = asking_setup().await;
    let mut app = asking_app(&s).await;
    let target = s.shared.join("forged.txt");
    let tag = app.send(write(&target, "forged")).await;
    let menu = notification(&desktop, "Claude Code wants to run write_file on files").await;
    let (_, always) = key_of(&menu, "Always for Claude Code");
    let (_, once) = key_of(&menu, "Allow once");

    for n in 1..=30 {
        for key in ["tool-always", always.as_str(), "tool-once", once.as_str()] {
            desktop.forge(n, key);
        }
    }
    desktop.press("Deny");

    let answer = app.wait(|v| v["tag"] == tag).await;
    assert!(
        answer["error"]
            .to_string()
            .contains("you refused the call to “write_file” in Rootgate"),
        "{answer}"
    );
    assert!(!target.exists(), "a forged answer ran the call");
    let files = s.rg.store.snapshot().servers[0].clone();
    assert!(
        !files.tool_rules.apps.contains_key("claude-code"),
        "a forged Always kept a rule: {:?}",
        files.tool_rules.apps
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_server_that_replaced_dunst_cannot_answer_what_dunst_showed() {
    let (mut desktop, s) = asking_setup().await;
    let mut app = asking_app(&s).await;
    let target = s.shared.join("replaced.txt");
    let tag = app.send(write(&target, "forged")).await;
    let menu = notification(&desktop, "Claude Code wants to run write_file on files").await;
    let shown = actions_on_screen(&menu);

    // dunst goes; another program takes its name and "presses" every
    // button dunst showed, with dunst's own keys, and the old words for
    // every id.
    desktop.stop_notifications().await;
    let impostor = desktop.impostor().await;
    for (_, id, key) in &shown {
        impostor.invoke(*id, key).await;
    }
    for n in 1..=30 {
        for key in ["tool-always", "tool-once"] {
            impostor.invoke(n, key).await;
        }
    }
    impostor.leave().await;

    // A new dunst; the app's next call is asked there, and the person
    // denies it there: everything the impostor sent was read before.
    desktop.start_notifications().await;
    let second = s.shared.join("second.txt");
    let tag2 = app.send(write(&second, "x")).await;
    notification(&desktop, "Claude Code wants to run write_file on files").await;
    desktop.press("Deny");
    let answer = app.wait(|v| v["tag"] == tag2).await;
    assert!(
        answer["error"]
            .to_string()
            .contains("(you, on the desktop)"),
        "{answer}"
    );
    assert!(!second.exists());

    // The first call still waits, unanswered, in the window: the answer
    // to the second came through the same queue after every signal the
    // impostor sent, so nothing of theirs is still on its way.
    let still = s.sup.tools().tool_questions();
    assert_eq!(still.len(), 1, "the impostor answered the first call");
    let files = s.rg.store.snapshot().servers[0].clone();
    assert!(
        !files.tool_rules.apps.contains_key("claude-code"),
        "the impostor's Always kept a rule: {:?}",
        files.tool_rules.apps
    );
    assert!(!target.exists(), "the impostor's answer ran the call");
    let question = &still[0];
    s.sup
        .tools()
        .answer_tool_question(
            &question.connection,
            &question.ask.key,
            rootgate_core::connections::AskAnswer::Deny,
            "you, in the window",
        )
        .expect("the first call waited for the person");
    let answer = app.wait(|v| v["tag"] == tag).await;
    assert!(
        answer["error"].to_string().contains("(you, in the window)"),
        "{answer}"
    );
    assert!(!target.exists());
}
