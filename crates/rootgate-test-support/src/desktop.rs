//! A real desktop for tests: an X server (Xvfb), a D-Bus session bus of
//! the test's own, and Debian's dunst 1.9 serving
//! `org.freedesktop.Notifications` on it. The person's click is dunst's
//! own context menu (`dunstctl context`), whose "dmenu" is a script that
//! writes the menu dunst offers to a file and picks the action the test
//! names: dunst then sends `ActionInvoked` as it does for a person.
//! Also the attacker's side: a signal forged by another program on the
//! same bus (`dbus-send`, as the issue tried it), and an impostor that
//! takes the notification server's name once dunst is gone.
//! `scripts/setup.sh test` installs xvfb, dbus-daemon and dunst.

use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::wait::WAIT;

pub struct TestDesktop {
    pub address: String,
    display: String,
    dir: tempfile::TempDir,
    /// Xvfb and the bus.
    _children: Vec<Child>,
    /// dunst, when the test started it (not when the bus did).
    dunst: Option<Child>,
}

/// Whether and how a notification server serves the desktop's bus.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Notifications {
    /// dunst runs from the start.
    Running,
    /// Nobody serves `org.freedesktop.Notifications`.
    None,
    /// The bus starts dunst on the first call to the name (D-Bus
    /// activation, from a service file, as Debian's dunst ships one).
    OnDemand,
}

/// A connection of the test's own that owns `org.freedesktop.Notifications`
/// after dunst left it: a replacement daemon, as far as the bus can tell.
pub struct Impostor {
    conn: zbus::Connection,
}

impl Impostor {
    /// Emits `ActionInvoked(id, key)` as the name's owner now.
    pub async fn invoke(&self, id: u32, key: &str) {
        self.conn
            .emit_signal(
                None::<&str>,
                "/org/freedesktop/Notifications",
                "org.freedesktop.Notifications",
                "ActionInvoked",
                &(id, key),
            )
            .await
            .expect("emit ActionInvoked");
    }

    /// Leaves the bus, and the name with it.
    pub async fn leave(self) {
        let _ = self.conn.close().await;
    }
}

/// Each button on dunst's screen, from its context menu's lines
/// (`#Label (summary) [id,key]`): (label, notification id, action key as
/// dunst was given it).
pub fn actions_on_screen(menu: &[String]) -> Vec<(String, u32, String)> {
    menu.iter()
        .filter_map(|line| {
            let label = line.strip_prefix('#')?.split(" (").next()?.to_owned();
            let (_, tail) = line.rsplit_once(" [")?;
            let (id, key) = tail.strip_suffix(']')?.split_once(',')?;
            Some((label, id.parse().ok()?, key.to_owned()))
        })
        .collect()
}

async fn first_line(child: &mut Child, what: &str) -> String {
    let out = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(out).lines();
    tokio::time::timeout(WAIT, lines.next_line())
        .await
        .unwrap_or_else(|_| panic!("{what} did not start"))
        .expect("read")
        .unwrap_or_else(|| panic!("{what} said nothing; run scripts/setup.sh test"))
}

fn spawn(cmd: &mut Command, what: &str) -> Child {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("{what} cannot start ({e}); run scripts/setup.sh test"))
}

/// A session bus's configuration, written in `dir`, whose only service is
/// `org.freedesktop.Notifications`, served by dunst with the config `rc`,
/// started by the bus on the first call to that name.
fn on_demand_bus(dir: &std::path::Path, rc: &std::path::Path) -> PathBuf {
    let dunst = std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|p| p.join("dunst"))
                .find(|p| p.is_file())
        })
        .expect("dunst on PATH (run scripts/setup.sh test)");
    let services = dir.join("services");
    std::fs::create_dir_all(&services).expect("mkdir services");
    std::fs::write(
        services.join("org.freedesktop.Notifications.service"),
        format!(
            "[D-BUS Service]\nName=org.freedesktop.Notifications\nExec={} -config {}\n",
            dunst.display(),
            rc.display()
        ),
    )
    .expect("write the service file");
    let config = dir.join("bus.conf");
    std::fs::write(
        &config,
        format!(
            "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"
 \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">
<busconfig>
  <type>session</type>
  <listen>unix:dir={d}</listen>
  <auth>EXTERNAL</auth>
  <servicedir>{s}</servicedir>
  <policy context=\"default\">
    <allow send_destination=\"*\" eavesdrop=\"true\"/>
    <allow eavesdrop=\"true\"/>
    <allow own=\"*\"/>
  </policy>
</busconfig>
",
            d = dir.display(),
            s = services.display()
        ),
    )
    .expect("write the bus's configuration");
    config
}

impl TestDesktop {
    pub async fn start() -> TestDesktop {
        TestDesktop::with(Notifications::Running).await
    }

    /// The desktop without a notification server (no dunst): questions
    /// then wait in the window and the tray.
    pub async fn without_notifications() -> TestDesktop {
        TestDesktop::with(Notifications::None).await
    }

    /// The desktop whose bus starts dunst on demand: nobody owns
    /// `org.freedesktop.Notifications` until a call to it arrives.
    pub async fn on_demand() -> TestDesktop {
        TestDesktop::with(Notifications::OnDemand).await
    }

    async fn with(notifications: Notifications) -> TestDesktop {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut xvfb = spawn(
            Command::new("Xvfb").args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "800x600x24",
                "-nolisten",
                "tcp",
            ]),
            "Xvfb",
        );
        let display = format!(":{}", first_line(&mut xvfb, "Xvfb").await.trim());
        let pick = dir.path().join("pick.sh");
        std::fs::write(
            &pick,
            format!(
                "#!/bin/sh\ncat > '{d}/menu.part'\nmv '{d}/menu.part' '{d}/menu'\ngrep -F \"#$(cat '{d}/choice') (\" '{d}/menu' | head -n 1\n",
                d = dir.path().display()
            ),
        )
        .expect("write the pick script");
        std::fs::set_permissions(&pick, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
        let rc = dir.path().join("dunstrc");
        std::fs::write(&rc, format!("[global]\n    dmenu = {}\n", pick.display()))
            .expect("write dunstrc");
        let mut bus = Command::new("dbus-daemon");
        bus.args(["--nofork", "--nopidfile", "--print-address=1"]);
        if notifications == Notifications::OnDemand {
            let config = on_demand_bus(dir.path(), &rc);
            bus.arg(format!("--config-file={}", config.display()))
                .env("DISPLAY", &display);
        } else {
            bus.arg("--session");
        }
        let mut bus = spawn(&mut bus, "dbus-daemon");
        let address = first_line(&mut bus, "dbus-daemon").await.trim().to_owned();
        let mut desktop = TestDesktop {
            address,
            display,
            dir,
            _children: vec![xvfb, bus],
            dunst: None,
        };
        if notifications == Notifications::Running {
            desktop.start_notifications().await;
        }
        desktop
    }

    /// Starts dunst on the desktop's bus (again, after
    /// [`TestDesktop::stop_notifications`]), once it serves notifications.
    pub async fn start_notifications(&mut self) {
        let dunst = spawn(
            Command::new("dunst")
                .arg("-config")
                .arg(self.dir.path().join("dunstrc"))
                .env("DISPLAY", &self.display)
                .env("DBUS_SESSION_BUS_ADDRESS", &self.address),
            "dunst",
        );
        self.dunst = Some(dunst);
        crate::wait::eventually("dunst to serve notifications", || async {
            rootgate_notify::Desktop::at(&self.address)
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .await;
    }

    /// Another program on the same session bus sends
    /// `ActionInvoked(id, key)`, as the attacker did:
    /// `dbus-send --type=signal /org/freedesktop/Notifications
    /// org.freedesktop.Notifications.ActionInvoked uint32:ID string:KEY`.
    /// Returns once the bus has it (dbus-send has exited).
    pub fn forge(&self, id: u32, key: &str) {
        self.dbus_send(
            "ActionInvoked",
            &[format!("uint32:{id}"), format!("string:{key}")],
        );
    }

    /// Another program sends `NotificationClosed(id, 2)`: "dismissed by
    /// the user", as if the person had closed the notification.
    pub fn forge_closed(&self, id: u32) {
        self.dbus_send(
            "NotificationClosed",
            &[format!("uint32:{id}"), "uint32:2".into()],
        );
    }

    fn dbus_send(&self, member: &str, args: &[String]) {
        let status = std::process::Command::new("dbus-send")
            .arg(format!("--bus={}", self.address))
            .args(["--type=signal", "/org/freedesktop/Notifications"])
            .arg(format!("org.freedesktop.Notifications.{member}"))
            .args(args)
            .status()
            .expect("dbus-send (run scripts/setup.sh test)");
        assert!(status.success(), "dbus-send failed");
    }

    /// Takes `org.freedesktop.Notifications` on the bus, as a notification
    /// server replacing dunst would: call once dunst is stopped.
    pub async fn impostor(&self) -> Impostor {
        let conn = zbus::connection::Builder::address(self.address.as_str())
            .expect("bus address")
            .build()
            .await
            .expect("connect to the test's bus");
        // The bus frees the name once it sees dunst's connection end, a
        // moment after the process did.
        crate::wait::eventually("the notification server's name to be free", || async {
            conn.request_name("org.freedesktop.Notifications")
                .await
                .map_err(|e| e.to_string())
        })
        .await;
        Impostor { conn }
    }

    fn dunstctl(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new("dunstctl");
        cmd.args(args)
            .env("DISPLAY", &self.display)
            .env("DBUS_SESSION_BUS_ADDRESS", &self.address);
        cmd
    }

    /// The lines of dunst's context menu now: one per action of each
    /// notification on screen, `#Label (summary) [id,key]`.
    pub fn menu(&self) -> Vec<String> {
        let count = self
            .dunstctl(&["count", "displayed"])
            .output()
            .expect("dunstctl count");
        if String::from_utf8_lossy(&count.stdout).trim() == "0" {
            return Vec::new();
        }
        std::fs::write(self.dir.path().join("choice"), "\u{1}nothing").expect("write choice");
        self.run_menu()
    }

    fn run_menu(&self) -> Vec<String> {
        let menu = self.dir.path().join("menu");
        // dunst opens one context menu at a time and ignores a call while
        // the last one is still being read: asked again until it opens.
        for _ in 0..20 {
            let _ = std::fs::remove_file(&menu);
            let status = self.dunstctl(&["context"]).status().expect("dunstctl");
            assert!(status.success(), "dunstctl context failed");
            // dunst runs the menu on a thread of its own; the file appears
            // (renamed into place) once the script has read all of it.
            for _ in 0..20 {
                if let Ok(text) = std::fs::read_to_string(&menu) {
                    return text.lines().map(str::to_owned).collect();
                }
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
        }
        Vec::new()
    }

    /// Presses the button `label` of the notification on screen, through
    /// dunst's own context menu.
    pub fn press(&self, label: &str) -> Vec<String> {
        std::fs::write(self.dir.path().join("choice"), label).expect("write choice");
        self.run_menu()
    }

    /// Dismisses the notification on screen, as a person closing it does
    /// (`dunstctl close`: dunst says it was dismissed by the user).
    pub fn dismiss(&self) {
        let status = self.dunstctl(&["close"]).status().expect("dunstctl close");
        assert!(status.success(), "dunstctl close failed");
    }

    /// Ends the notification daemon (dunst), as one that crashes or is
    /// quit: its name leaves the bus.
    pub async fn stop_notifications(&mut self) {
        if let Some(mut dunst) = self.dunst.take() {
            let _ = dunst.kill().await;
        }
    }

    /// The X display the desktop runs on (`:N`), for a program that shows
    /// a window there.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// Saves the whole X screen as `NAME.png` in the folder
    /// `$ROOTGATE_SCREENSHOTS`, when it is set (for a person to look at
    /// what a test showed, with ImageMagick's `import`); nothing otherwise.
    pub fn screenshot(&self, name: &str) {
        let Some(dir) = std::env::var_os("ROOTGATE_SCREENSHOTS") else {
            return;
        };
        let _ = std::fs::create_dir_all(&dir);
        let file = PathBuf::from(dir).join(format!("{name}.png"));
        let status = std::process::Command::new("import")
            .args(["-window", "root", "-display", &self.display])
            .arg(&file)
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "import could not save {}",
            file.display()
        );
    }

    /// dunst's history (notifications closed), as `dunstctl history` gives
    /// it: (summary, body) of each.
    pub fn history(&self) -> Vec<(String, String)> {
        let out = self
            .dunstctl(&["history"])
            .output()
            .expect("dunstctl history");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("history JSON");
        v["data"][0]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|n| {
                (
                    n["summary"]["data"].as_str().unwrap_or_default().to_owned(),
                    n["body"]["data"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    #[allow(dead_code)]
    pub fn dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}
