//! `cargo xtask setup`: everything the tests run with, installed where it is missing, so that
//! `cargo xtask test` (which starts with it) works on a fresh machine.
//!
//! * Debian packages: `redis-cli` (redis-tools), libfaketime (faketime), Chromium, Node.js and
//!   npm, and Python's `venv` with `ensurepip` (python3-venv). As root they are installed with
//!   apt-get; otherwise setup stops and names the one command that installs them.
//! * rustup: the rustfmt and clippy components and the wasm32 target.
//! * Python: a virtual environment in `target/venv` with `tests/requirements.txt` (redis-py,
//!   pytest, and the reference servers' wheels). The commands xtask starts find its `python3`
//!   first on PATH ([`use_venv`]), so every script and `tests/oracle/redis.sh` use it.
//! * npm: `npm ci` in `tests/clients/node`, `tests/browser` and `tests/studio`.
//! * mdBook, which tests/browser/fences.test.mjs builds a real book with: `cargo install` from
//!   crates.io into `target/tools` ([`mdbook`]), when that version is not there.
//!
//! The Python and npm steps leave a stamp holding a fingerprint of the files they installed
//! from, and run again only when those files change; the other steps ask what is installed
//! each time. A second run installs nothing and takes well under a second.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{cargo, root, run, target_dir};

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// `cargo fmt --check` and `cargo clippy` are the first steps of `cargo xtask test`.
const COMPONENTS: &[&str] = &["rustfmt", "clippy"];

/// What `pip install -r` reads, the included file too: a change to either reinstalls.
const PYTHON_REQUIREMENTS: &[&str] = &["tests/requirements.txt", "tests/clients/python/requirements.txt"];

/// The npm projects of the tests, each installed from its own `package-lock.json`.
const NPM_PROJECTS: &[&str] = &["tests/clients/node", "tests/browser", "tests/studio"];

/// The stamp's name, inside the directory it describes (`target/venv`, `node_modules`): a
/// venv made afresh or an `npm ci` takes the stale stamp away with the rest.
const STAMP: &str = ".streamlab-setup";

/// Runs every step, each printing one line (or the installer's own output when it installs).
pub fn setup() -> Result<(), String> {
    system_packages()?;
    rustup("component", COMPONENTS)?;
    wasm_target()?;
    python()?;
    NPM_PROJECTS.iter().copied().try_for_each(npm)?;
    install_mdbook()
}

/// The mdBook the docs-site test builds with; a book's markup may change between releases, and
/// fences.js reads it.
const MDBOOK_VERSION: &str = "0.5.4";

/// Where `cargo install` puts mdBook: under the target directory, so each checkout keeps its
/// own (built once, about 3 minutes on two cores) and `cargo clean` takes it away.
fn tools() -> PathBuf {
    target_dir().join("tools")
}

/// The mdBook binary setup installs.
pub fn mdbook() -> PathBuf {
    tools().join("bin/mdbook")
}

/// Builds mdBook from crates.io unless this version is installed: without its default features,
/// which only serve and watch a book (the test only builds one), and `--locked`, with the
/// dependency versions its release was tested with.
fn install_mdbook() -> Result<(), String> {
    let version = Command::new(mdbook()).arg("--version").output();
    if version.is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == format!("mdbook v{MDBOOK_VERSION}")) {
        eprintln!("==> setup: mdbook {MDBOOK_VERSION} present in {}", tools().display());
        return Ok(());
    }
    run(
        &format!("setup: cargo install mdbook {MDBOOK_VERSION} (into {})", tools().display()),
        cargo()
            .args(["install", "mdbook", "--locked", "--no-default-features", "--version", MDBOOK_VERSION, "--root"])
            .arg(tools())
            // Built in a directory of its own, which cargo removes afterwards: mdBook's
            // dependencies are none of the workspace's.
            .env_remove("CARGO_TARGET_DIR"),
    )
}

/// Adds the wasm32 target through rustup when it is missing (`serve` and `dist` need no more).
pub fn wasm_target() -> Result<(), String> {
    rustup("target", &[WASM_TARGET])
}

pub fn venv() -> PathBuf {
    target_dir().join("venv")
}

/// Puts `target/venv/bin` first on this process's PATH, which every command xtask starts
/// inherits: `python3` in xtask, in `#!/usr/bin/env python3` scripts and in redis.sh's
/// `python3 -c` (which finds the servers' wheels) is then the venv's. Without a venv
/// (`--no-setup` on a machine that has the packages elsewhere) PATH stays as it is.
pub fn use_venv() {
    let bin = venv().join("bin");
    if !bin.is_dir() {
        return;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let paths = std::iter::once(bin).chain(std::env::split_paths(&path));
    if let Ok(joined) = std::env::join_paths(paths) {
        // xtask is single-threaded here, before it starts anything.
        std::env::set_var("PATH", joined);
    }
}

/// Debian packages the tests need and whether each is here: (package, present).
fn system_needs() -> Vec<(&'static str, bool)> {
    // tests/browser/harness.mjs starts $CHROMIUM, or Debian's /usr/bin/chromium.
    let chromium = std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    vec![
        ("redis-tools", on_path("redis-cli")),
        // The package of the `faketime` program, which brings the libfaketime redis.sh preloads.
        ("faketime", on_path("faketime")),
        ("chromium", chromium.is_file()),
        ("nodejs", on_path("node")),
        ("npm", on_path("npm")),
        // Debian's python3 leaves ensurepip to python3-venv, and a venv without it has no pip.
        // Once the venv exists it is not needed any more.
        ("python3-venv", python_runs(&venv().join("bin/python3")) || python_can_make_venvs()),
    ]
}

/// What to do about the missing Debian packages.
#[derive(Debug, PartialEq)]
enum SystemPlan {
    Nothing,
    Install(Vec<&'static str>),
    /// Stop with this message: not root, so nothing can be installed here.
    Ask(String),
}

fn plan_system(needs: &[(&'static str, bool)], root: bool, sudo: bool) -> SystemPlan {
    let missing: Vec<&'static str> =
        needs.iter().filter(|(_, present)| !present).map(|(package, _)| *package).collect();
    if missing.is_empty() {
        SystemPlan::Nothing
    } else if root {
        SystemPlan::Install(missing)
    } else {
        let list = missing.join(" ");
        // Without sudo, su runs it as root (it asks for root's password).
        let command =
            if sudo { format!("sudo apt-get install -y {list}") } else { format!("su -c 'apt-get install -y {list}'") };
        SystemPlan::Ask(format!(
            "the tests need Debian packages that are not installed: {list}\n\
             install them with the one command\n\n    {command}\n\n\
             then run this command again (as root it installs them itself)"
        ))
    }
}

fn system_packages() -> Result<(), String> {
    let needs = system_needs();
    match plan_system(&needs, is_root(), on_path("sudo")) {
        SystemPlan::Nothing => {
            let names: Vec<&str> = needs.iter().map(|(package, _)| *package).collect();
            eprintln!("==> setup: Debian packages present ({})", names.join(", "));
            Ok(())
        }
        SystemPlan::Install(missing) => {
            let apt = |args: &[&str]| {
                let mut command = Command::new("apt-get");
                command.args(args).env("DEBIAN_FRONTEND", "noninteractive");
                command
            };
            // A fresh machine may have no package lists yet.
            run("setup: apt-get update", &mut apt(&["update", "-qq"]))?;
            run(&format!("setup: apt-get install {}", missing.join(" ")), apt(&["install", "-y", "-qq"]).args(&missing))
        }
        SystemPlan::Ask(message) => Err(message),
    }
}

/// Effective uid 0. `id` is in coreutils, which every Debian has; if it cannot run, not root.
fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(dir.join(program)).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

fn python_runs(python: &Path) -> bool {
    Command::new(python).args(["-c", ""]).output().is_ok_and(|out| out.status.success())
}

fn python_can_make_venvs() -> bool {
    Command::new("python3").args(["-c", "import ensurepip, venv"]).output().is_ok_and(|out| out.status.success())
}

/// Adds the rustup `kind`s ("component", "target") of `wanted` that are not installed. Without
/// rustup (a toolchain installed otherwise) nothing is checked: cargo says what it lacks.
fn rustup(kind: &str, wanted: &[&str]) -> Result<(), String> {
    let listed = Command::new("rustup").args([kind, "list", "--installed"]).current_dir(root()).output();
    let installed = match listed {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        _ => {
            eprintln!("==> setup: no rustup: {kind}s {} not checked", wanted.join(", "));
            return Ok(());
        }
    };
    let missing = missing_from(wanted, &installed);
    if missing.is_empty() {
        eprintln!("==> setup: rustup {kind}s present ({})", wanted.join(", "));
        return Ok(());
    }
    run(
        &format!("setup: rustup {kind} add {}", missing.join(" ")),
        Command::new("rustup").args([kind, "add"]).args(&missing),
    )
}

/// The names of `wanted` that no line of `rustup ... list --installed` names: components are
/// listed with the host's triple after them (`rustfmt-x86_64-unknown-linux-gnu`), targets
/// bare.
fn missing_from<'a>(wanted: &[&'a str], installed: &str) -> Vec<&'a str> {
    let listed = |name: &str| {
        installed
            .lines()
            .map(str::trim)
            .any(|line| line.strip_prefix(name).is_some_and(|rest| rest.is_empty() || rest.starts_with('-')))
    };
    wanted.iter().copied().filter(|name| !listed(name)).collect()
}

/// The venv in `target/venv`, made when it is missing or its python no longer runs (the
/// system's python it was made from went away), filled from the requirements when they
/// changed since the last install.
fn python() -> Result<(), String> {
    let venv = venv();
    let python = venv.join("bin/python3");
    let stamp = venv.join(STAMP);
    let wanted = fingerprint_files(PYTHON_REQUIREMENTS)?;
    if !python_runs(&python) {
        run(
            &format!("setup: python3 -m venv {}", venv.display()),
            Command::new("python3").args(["-m", "venv", "--clear"]).arg(&venv),
        )?;
    } else if std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) {
        eprintln!("==> setup: {} up to date with tests/requirements.txt", venv.display());
        return Ok(());
    }
    run(
        "setup: pip install -r tests/requirements.txt (into the venv)",
        Command::new(&python).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
            "tests/requirements.txt",
        ]),
    )?;
    std::fs::write(&stamp, wanted).map_err(|e| format!("{}: {e}", stamp.display()))
}

/// `npm ci` in `project` unless its `node_modules` was installed from this `package-lock.json`.
fn npm(project: &str) -> Result<(), String> {
    let dir = root().join(project);
    let stamp = dir.join("node_modules").join(STAMP);
    let wanted = fingerprint_files(&[&format!("{project}/package-lock.json")])?;
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) {
        eprintln!("==> setup: {project}/node_modules up to date with its package-lock.json");
        return Ok(());
    }
    run(
        &format!("setup: npm ci ({project})"),
        Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&dir),
    )?;
    std::fs::write(&stamp, wanted).map_err(|e| format!("{}: {e}", stamp.display()))
}

/// The stamp of the workspace files `paths`: their fingerprint, in hex.
fn fingerprint_files(paths: &[&str]) -> Result<String, String> {
    let mut contents = Vec::new();
    for path in paths {
        let file = root().join(path);
        contents.push(std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?);
    }
    Ok(fingerprint(&contents))
}

/// FNV-1a (64 bits) of the parts, each followed by its length so that moving bytes from one
/// part to the next changes it. A fixed function, unlike std's hasher, whose results may change
/// between Rust releases (which would only reinstall, but needlessly).
fn fingerprint(parts: &[Vec<u8>]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.iter().copied().chain((part.len() as u64).to_le_bytes()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{hash:016x}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_found_with_the_host_triple_after_them() {
        let installed = "cargo-x86_64-unknown-linux-gnu\nclippy-x86_64-unknown-linux-gnu\nrust-docs-x86_64-unknown-linux-gnu\nrustc-x86_64-unknown-linux-gnu\n";
        assert_eq!(missing_from(&["rustfmt", "clippy"], installed), ["rustfmt"]);
        // `rust` is no component of that list, though `rust-docs` and `rustc` start with it.
        assert_eq!(missing_from(&["rust"], "rustc-x86_64-unknown-linux-gnu\n"), ["rust"]);
        assert_eq!(missing_from(&["clippy"], installed), Vec::<&str>::new());
    }

    #[test]
    fn targets_are_listed_bare() {
        assert_eq!(missing_from(&[WASM_TARGET], "x86_64-unknown-linux-gnu\n"), [WASM_TARGET]);
        assert!(missing_from(&[WASM_TARGET], "wasm32-unknown-unknown\nx86_64-unknown-linux-gnu\n").is_empty());
        assert_eq!(missing_from(&["clippy"], ""), ["clippy"]);
    }

    #[test]
    fn nothing_missing_needs_nothing_even_without_root() {
        let needs = [("redis-tools", true), ("chromium", true)];
        assert_eq!(plan_system(&needs, false, false), SystemPlan::Nothing);
    }

    #[test]
    fn root_installs_only_what_is_missing() {
        let needs = [("redis-tools", false), ("faketime", true), ("chromium", false)];
        assert_eq!(plan_system(&needs, true, true), SystemPlan::Install(vec!["redis-tools", "chromium"]));
    }

    #[test]
    fn without_root_it_names_the_one_command() {
        let needs = [("redis-tools", false), ("faketime", true), ("chromium", false)];
        let SystemPlan::Ask(message) = plan_system(&needs, false, true) else { panic!("not root: nothing to install") };
        assert!(message.contains("\n    sudo apt-get install -y redis-tools chromium\n"), "{message}");
        let SystemPlan::Ask(message) = plan_system(&needs, false, false) else {
            panic!("not root: nothing to install")
        };
        assert!(message.contains("\n    su -c 'apt-get install -y redis-tools chromium'\n"), "{message}");
    }

    #[test]
    fn the_fingerprint_follows_every_byte_and_the_split() {
        let a = fingerprint(&[b"redis==8.1.0\n".to_vec(), b"pytest\n".to_vec()]);
        assert_eq!(a, fingerprint(&[b"redis==8.1.0\n".to_vec(), b"pytest\n".to_vec()]));
        assert_ne!(a, fingerprint(&[b"redis==8.1.1\n".to_vec(), b"pytest\n".to_vec()]));
        assert_ne!(a, fingerprint(&[b"redis==8.1.0\npytest\n".to_vec(), Vec::new()]));
        // FNV-1a's offset basis, then the eight bytes of a zero length.
        assert_eq!(fingerprint(&[]), "cbf29ce484222325\n");
    }
}
