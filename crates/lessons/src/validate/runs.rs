//! The validator's engine runs: every section of the lesson (a task's start with its
//! solution, a predicted command, a misconception's path) on every variant, each from a fresh
//! session, with the golden trace they print. Each section replays on its own (it starts with
//! `:profile`), so CI's oracle step can run the golden trace on the real server it names.

use streamlab_protocol::console::Console;
use streamlab_protocol::{Clock, Session, VIRTUAL_EPOCH_MS};

use super::{Strict, Validator};
use crate::check::{check_log, judge, run, run_one, Scene};
use crate::model::{AnswerOption, Goal, Line, Misconception, TaskKind, Variant};
use crate::params;
use crate::quiz::{normalise_reply, numeric_answer};
use crate::script::{log_of, steps};
use crate::trail::Trail;

/// How many lines of a section get an invariant check each (see [`Validator::traced`]).
const INVARIANTS_EVERY_LINE: usize = 1000;

/// The real server a profile's golden trace is compared with, as the oracle's `# oracle:`
/// header names it; documented-only profiles are skipped.
fn oracle(profile: &str) -> &'static str {
    match profile {
        "redis-8.2" => "redis-8.2",
        "redis-7.4" => "redis-7.4",
        "valkey-9" => "valkey-9",
        _ => "skip",
    }
}

impl Validator<'_> {
    /// Runs everything on every variant; returns the golden trace.
    pub(super) fn run_everything(&mut self) -> String {
        let lesson = self.lesson;
        let mut trace = format!(
            "# oracle: {}\n\
             # Golden trace of lesson `{}` (version {}): its setup, demos, solutions, predicted commands and\n\
             # misconceptions with their replies, on every variant; each section starts on a fresh server.\n\
             # `streamlab check --bless lessons/` rewrites it.\n",
            oracle(lesson.profile.name()),
            lesson.id,
            lesson.version
        );
        for (vn, variant) in lesson.variants.iter().enumerate() {
            self.placeholders_evaluate(vn, variant);
            trace.push_str(&format!("\n# ===== variant {vn}: {}\n", describe_variant(variant)));
            for (tn, task) in lesson.tasks.iter().enumerate() {
                let label = format!("task {} (variant {vn})", tn + 1);
                match &task.kind {
                    TaskKind::ReachState(goal) => {
                        trace.push_str(&format!("# --- task {}: {} (reach-state)\n", tn + 1, task.title));
                        let mut console = self.section(tn, variant, &mut trace);
                        let start = console.clone();
                        let from = console.timeline().position();
                        if judge(lesson, tn, vn, &console, from).is_ok_and(|v| v.passed) {
                            self.problem(task.line, format!("{label}: the goal already passes on the start state"));
                        }
                        trace.push_str("# solution\n");
                        self.traced(&mut console, &goal.solution, variant, &mut trace, Strict::NoErrors, "solution");
                        let traced = judge(lesson, tn, vn, &console, from);
                        // The checker graders call must agree with the traced run.
                        let checked = check_log(lesson, tn, vn, &log_of(&goal.solution, variant));
                        let mut messages = Vec::new();
                        for verdict in [traced, checked].into_iter().flatten().filter(|v| !v.passed) {
                            for failure in verdict.failures {
                                if !messages.contains(&failure.message) {
                                    messages.push(failure.message);
                                }
                            }
                        }
                        if !messages.is_empty() {
                            self.problem(
                                task.line,
                                format!("{label}: the solution does not pass: {}", messages.join(" | ")),
                            );
                        }
                        self.must_not_pass(tn, vn, goal, &start, variant);
                        self.quiet_on_the_way(tn, vn, goal, &start, variant);
                        if vn > 0 {
                            self.memorised(tn, vn, goal, &start);
                        }
                        for (mn, m) in goal.misconceptions.iter().enumerate() {
                            trace.push_str(&format!("# --- task {}, misconception {}\n", tn + 1, mn + 1));
                            self.misconception(tn, vn, (mn, m), (&console, from), &mut trace);
                        }
                    }
                    TaskKind::Predict(predict) => {
                        trace.push_str(&format!("# --- task {}: {} (predict)\n", tn + 1, task.title));
                        let mut console = self.section(tn, variant, &mut trace);
                        trace.push_str("# predicted command\n");
                        let printed = self.traced(
                            &mut console,
                            std::slice::from_ref(&predict.command),
                            variant,
                            &mut trace,
                            Strict::KnownCommands,
                            "predicted command",
                        );
                        self.prediction(tn, vn, &predict.options, &printed.join("\n"), variant);
                    }
                    TaskKind::Numeric(_) => {
                        if numeric_answer(lesson, tn, vn).is_err() {
                            self.problem(
                                task.line,
                                format!("{label}: the answer cannot be worked out on this variant"),
                            );
                        }
                    }
                    TaskKind::Choice(_) | TaskKind::Order(_) => {}
                }
            }
        }
        trace
    }

    /// Every `${expr}` of the file must evaluate with this variant's parameters.
    fn placeholders_evaluate(&mut self, vn: usize, variant: &Variant) {
        for (line, expr) in &self.lesson.expressions {
            if let Err(problem) = params::eval(expr, &variant.params) {
                self.problem(*line, format!("variant {vn}: `${{{expr}}}`: {problem}"));
            }
        }
    }

    /// A fresh session with the lesson's setup, the intro's demos and the task's chain (the
    /// setups of the tasks it continues from, with their solutions), traced under a
    /// `:profile` line that starts the section afresh.
    fn section(&mut self, task: usize, variant: &Variant, trace: &mut String) -> Console {
        let lesson = self.lesson;
        trace.push_str(&format!("> :profile {}\n", lesson.profile.name()));
        // `:profile` puts a replaying server's clock at the epoch: a lesson (or variant) that
        // starts later says so with a clock step, so every time in the section matches.
        let start = lesson.start_clock(variant);
        let after_epoch = start.saturating_sub(VIRTUAL_EPOCH_MS);
        let mut console = if after_epoch > 0 {
            let session = Session::with_profile(Clock::Virtual(VIRTUAL_EPOCH_MS), lesson.profile);
            let mut console = Console::new(session);
            console.transcribe(&format!(":clock +{after_epoch}"), trace);
            console
        } else {
            if after_epoch < 0 {
                self.problem(
                    0,
                    format!("the clock starts at {start}, before {VIRTUAL_EPOCH_MS}: a golden trace cannot replay it"),
                );
            }
            lesson.fresh_console(variant)
        };
        trace.push_str("# setup\n");
        self.traced(&mut console, &lesson.setup, variant, trace, Strict::NoErrors, "setup");
        for (sn, step) in lesson.intro.iter().enumerate() {
            if !step.demo.is_empty() {
                trace.push_str(&format!("# intro step {}\n", sn + 1));
                self.traced(&mut console, &step.demo, variant, trace, Strict::KnownCommands, "demo");
            }
        }
        for t in lesson.chain(task) {
            let earlier = &lesson.tasks[t];
            if !earlier.setup.is_empty() {
                trace.push_str(&format!("# task {} setup\n", t + 1));
                self.traced(&mut console, &earlier.setup, variant, trace, Strict::NoErrors, "task setup");
            }
            if let (true, TaskKind::ReachState(goal)) = (t != task, &earlier.kind) {
                trace.push_str(&format!("# task {} solution\n", t + 1));
                self.traced(&mut console, &goal.solution, variant, trace, Strict::NoErrors, "solution");
            }
        }
        console
    }

    /// Runs lines with their replies appended to the trace; reports error replies as `strict`
    /// says and broken engine invariants. Returns everything the lines printed.
    fn traced(
        &mut self,
        console: &mut Console,
        lines: &[Line],
        variant: &Variant,
        trace: &mut String,
        strict: Strict,
        what: &str,
    ) -> Vec<String> {
        let mut printed = Vec::new();
        let steps = steps(lines, variant);
        let last = steps.len().saturating_sub(1);
        for (n, (line, step)) in steps.into_iter().enumerate() {
            let out = run_one(console, &step, trace);
            if let Some(error) = out.iter().find(|l| l.starts_with("(error)")) {
                let unknown = error.starts_with("(error) ERR unknown command")
                    || error.starts_with("(error) ERR unknown subcommand");
                if strict == Strict::NoErrors || unknown {
                    self.problem(line, format!("{what} `{}` replied {error}", step.text));
                }
            }
            // A check walks the whole session: after every line of a lesson-sized section,
            // only at the end of a longer one, which would otherwise cost its length squared.
            if n < INVARIANTS_EVERY_LINE || n == last {
                if let Err(broken) = console.session().check_invariants() {
                    self.problem(line, format!("engine invariant broken after `{}`: {broken}", step.text));
                }
            }
            printed.extend(out);
        }
        printed
    }

    /// A learner on the right path must never be told they took a wrong one: after every
    /// proper prefix of the solution, no misconception recognised by its path alone may match.
    fn quiet_on_the_way(&mut self, tn: usize, vn: usize, goal: &Goal, start: &Console, variant: &Variant) {
        let log = log_of(&goal.solution, variant);
        for k in 1..log.len() {
            if !log[k - 1].is_command() {
                continue;
            }
            let mut console = start.clone();
            let from = console.timeline().position();
            run(&mut console, &log[..k], &[], None);
            // A `when` says what the wrong path did, and matching it half-way is what the
            // learner did; a path's failing checks alone cannot tell "not yet" from "wrong".
            let by_path = |message: &str| {
                goal.misconceptions.iter().any(|m| m.when.is_empty() && variant.apply_prose(&m.message) == message)
            };
            if let Ok(verdict) = judge(self.lesson, tn, vn, &console, from) {
                if let (false, Some(message)) = (verdict.passed, verdict.misconception.filter(|m| by_path(m))) {
                    self.problem(
                        self.lesson.tasks[tn].line,
                        format!(
                            "task {} (variant {vn}): after the solution's first {k} line(s) a misconception \
                             already matches (\"{message}\"): give it `when` checks that tell its path from \
                             the right one",
                            tn + 1
                        ),
                    );
                    return;
                }
            }
        }
    }

    fn must_not_pass(&mut self, tn: usize, vn: usize, goal: &Goal, start: &Console, variant: &Variant) {
        for sequence in &goal.must_not_pass {
            let mut console = start.clone();
            let from = console.timeline().position();
            run(&mut console, &log_of(sequence, variant), &[], None);
            if judge(self.lesson, tn, vn, &console, from).is_ok_and(|v| v.passed) {
                let line = sequence.first().map_or(self.lesson.tasks[tn].line, |l| l.line);
                self.problem(
                    line,
                    format!("task {} (variant {vn}): this must_not_pass sequence passes the goal", tn + 1),
                );
            }
        }
    }

    /// A misconception's path, traced in its own section: the goal must fail after it and its
    /// detector must recognise it; the detector must stay quiet after the solution
    /// (`solved` is the console after it).
    fn misconception(
        &mut self,
        tn: usize,
        vn: usize,
        (mn, m): (usize, &Misconception),
        (solved, solved_from): (&Console, usize),
        trace: &mut String,
    ) {
        let lesson = self.lesson;
        let variant = &lesson.variants[vn];
        let label = format!("task {}, misconception {} (variant {vn})", tn + 1, mn + 1);
        let mut console = self.section(tn, variant, trace);
        let from = console.timeline().position();
        trace.push_str("# path\n");
        self.traced(&mut console, &m.path, variant, trace, Strict::KnownCommands, "misconception path");
        let own = variant.apply_prose(&m.message);
        match judge(lesson, tn, vn, &console, from) {
            Ok(verdict) if verdict.passed => self.problem(m.line, format!("{label}: the goal passes after this path")),
            Ok(_) if !m.when.is_empty() && !detects(self, tn, vn, m, &console, from) => {
                self.problem(m.line, format!("{label}: its `when` checks do not all pass after its own path"))
            }
            // The learner who takes this path must read this explanation, not an earlier
            // misconception's (they are tried in order) nor none.
            Ok(verdict) if verdict.misconception.as_deref() != Some(own.as_str()) => self.problem(
                m.line,
                match verdict.misconception {
                    Some(other) => format!("{label}: after its path Check explains another misconception: \"{other}\""),
                    None => format!("{label}: after its path Check explains nothing (did the path change any state?)"),
                },
            ),
            _ => {}
        }
        if !m.when.is_empty() && detects(self, tn, vn, m, solved, solved_from) {
            self.problem(m.line, format!("{label}: its `when` checks also pass after the reference solution"));
        }
    }

    /// The solution of the lesson as written, typed from memory into a hidden variant, must
    /// not pass: that is what variants are for.
    fn memorised(&mut self, tn: usize, vn: usize, goal: &Goal, start: &Console) {
        let mut console = start.clone();
        let from = console.timeline().position();
        run(&mut console, &log_of(&goal.solution, &self.lesson.variants[0]), &[], None);
        if judge(self.lesson, tn, vn, &console, from).is_ok_and(|v| v.passed) {
            self.problem(
                self.lesson.tasks[tn].line,
                format!(
                    "task {} (variant {vn}): the solution as written also passes this variant; \
                     shift an id, rename a value or change a parameter the solution uses",
                    tn + 1
                ),
            );
        }
    }

    fn prediction(&mut self, tn: usize, vn: usize, options: &[AnswerOption], reply: &str, variant: &Variant) {
        let task_line = self.lesson.tasks[tn].line;
        if options.is_empty() {
            if reply.lines().count() != 1 {
                self.problem(
                    task_line,
                    format!("task {} (variant {vn}): a typed prediction needs a one-line reply; give options", tn + 1),
                );
            }
            return;
        }
        let reply = normalise_reply(reply);
        for option in options {
            let matches = normalise_reply(&variant.apply(&option.text)) == reply;
            if option.correct && !matches {
                self.problem(
                    option.line,
                    format!("task {} (variant {vn}): the right option differs from the reply:\n{reply}", tn + 1),
                );
            }
            if !option.correct && matches {
                self.problem(
                    option.line,
                    format!("task {} (variant {vn}): an option marked wrong is the real reply", tn + 1),
                );
            }
        }
    }
}

/// Whether a misconception's `when` checks all pass on the work since step `from`.
fn detects(v: &Validator<'_>, tn: usize, vn: usize, m: &Misconception, console: &Console, from: usize) -> bool {
    let trail = Trail::of(console, from);
    Scene::new(v.lesson, tn, vn, console.session(), &trail).is_ok_and(|scene| scene.failures(&m.when).is_empty())
}

fn describe_variant(variant: &Variant) -> String {
    if variant.is_identity() {
        return "the lesson as written".into();
    }
    let mut parts = Vec::new();
    if variant.ids > 0 {
        parts.push(format!("ids +{}", variant.ids));
    }
    if variant.clock != 0 {
        parts.push(format!("clock +{}ms", variant.clock));
    }
    for (name, value) in &variant.changed {
        parts.push(format!("{name} = {value}"));
    }
    for (from, to) in &variant.values {
        parts.push(format!("{from} -> {to}"));
    }
    parts.join(", ")
}
