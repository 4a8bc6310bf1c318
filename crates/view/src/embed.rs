//! What an embedded widget is told and what it tells its page: the options a host passes to
//! `mount` (as a URL query, already normalised by `embed.js`) and the payloads of its events.

use serde::Serialize;

pub use streamlab_lessons::Answer;

use streamlab_lessons::shape::quoted;
use streamlab_protocol::Profile;

use crate::share::decode;
use crate::{OutputView, SessionSpec};

/// What the widget is for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// A console and pictures to play in.
    #[default]
    Sandbox,
    /// The state after `setup`, shown but not typed into (the page may still call `run`).
    Readonly,
    /// A lesson: its intro, then its tasks in order, reach-state tasks with a console.
    Lesson,
    /// A lesson's predict and multiple-choice tasks only, no console.
    Quiz,
    /// A lesson with a list of its tasks to move between freely.
    Player,
}

/// Whether the reference solution may be shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SolutionPolicy {
    /// Behind a button.
    Allow,
    /// Behind a button and a confirmation.
    #[default]
    Confirm,
    /// Never.
    Never,
}

/// Which parts are shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Layout {
    /// The console only.
    Console,
    /// The pictures only.
    Pictures,
    /// Both, side by side when there is room.
    #[default]
    Both,
}

/// A widget's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedOptions {
    /// Sandbox or readonly.
    pub mode: Mode,
    /// Console lines run before the widget is shown (and again after a reset).
    pub setup: Vec<String>,
    /// The engine profile (the playground's default when the query names none).
    pub profile: Profile,
    /// Console, pictures or both.
    pub layout: Layout,
    /// A saved state (`getState()`'s token) to start from instead of running `setup`.
    pub state: Option<String>,
    /// The lesson file's text (lesson, quiz and player modes); embed.js fetches it.
    pub lesson: Option<String>,
    /// Where the lesson came from, to name it in its problems.
    pub file: Option<String>,
    /// Whether hints are offered.
    pub hints: bool,
    /// Whether the solution may be shown.
    pub solution: SolutionPolicy,
    /// Which attempt this is: picks the lesson's variant and the order options are shown in
    /// (the widget picks one at random when the page gives none).
    pub attempt: Option<u32>,
}

impl Default for EmbedOptions {
    fn default() -> Self {
        EmbedOptions {
            mode: Mode::default(),
            setup: Vec::new(),
            profile: Profile::default(),
            layout: Layout::default(),
            state: None,
            lesson: None,
            file: None,
            hints: true,
            solution: SolutionPolicy::default(),
            attempt: None,
        }
    }
}

/// The option names [`EmbedOptions::parse`] knows, in the order its errors list them.
const FIELDS: [&str; 10] =
    ["mode", "setup", "profile", "layout", "state", "lesson", "file", "hints", "solution", "attempt"];

impl EmbedOptions {
    /// Reads the options from a URL query (`mode=lesson&setup=LINE&setup=LINE&...`, as
    /// `URLSearchParams` writes it: `setup` repeats, one line each; absent options take their
    /// defaults); the error says which one is wrong. A query rather than JSON: the app's wasm
    /// then carries no JSON reader (serde_json's deserializer and a derived `Deserialize` per
    /// type cost kilobytes of the download), and embed.html already speaks this syntax.
    pub fn parse(query: &str) -> Result<EmbedOptions, String> {
        let options = EmbedOptions::read(query).map_err(|e| format!("Bad options: {e}"))?;
        match (options.mode.has_lesson(), &options.lesson) {
            (true, None) => Err(format!("mode {} needs a lesson", options.mode.name())),
            (false, Some(_)) => Err(format!("mode {} takes no lesson", options.mode.name())),
            (true, Some(_)) if !options.setup.is_empty() => {
                Err(format!("mode {} takes no setup: the lesson sets itself up", options.mode.name()))
            }
            _ => Ok(options),
        }
    }

    /// The query's options, each value checked on its own.
    fn read(query: &str) -> Result<EmbedOptions, String> {
        let mut options = EmbedOptions::default();
        for (name, value) in crate::share::query_parts(query) {
            let bad = || format!("`{name}` is not well encoded");
            let (name, value) = (decode(name).ok_or_else(bad)?, decode(value).ok_or_else(bad)?);
            match name.as_str() {
                "mode" => options.mode = choice(&value, &Mode::ALL, Mode::name)?,
                "setup" => options.setup.push(value),
                "profile" => options.profile = crate::profile_or_default(Some(&value))?,
                "layout" => options.layout = choice(&value, &Layout::ALL, Layout::name)?,
                "state" => options.state = Some(value),
                "lesson" => options.lesson = Some(value),
                "file" => options.file = Some(value),
                "hints" => options.hints = flag(&name, &value)?,
                "solution" => options.solution = choice(&value, &SolutionPolicy::ALL, SolutionPolicy::name)?,
                "attempt" => {
                    options.attempt =
                        Some(value.parse().map_err(|_| format!("attempt must be a whole number, not `{value}`"))?)
                }
                _ => return Err(format!("unknown field `{name}`, expected one of {}", quoted(&FIELDS))),
            }
        }
        Ok(options)
    }

    /// The session the widget starts from before its setup: the profile's fresh session.
    pub fn base_spec(&self) -> SessionSpec {
        SessionSpec { profile: self.profile, ..SessionSpec::default() }
    }
}

/// The `command` event: a line run in the widget and what it printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandEvent {
    /// The line as typed.
    pub input: String,
    /// The connection it ran on.
    pub conn: String,
    /// What it printed, as redis-cli prints it.
    pub reply: String,
    /// False when anything printed was an error.
    pub ok: bool,
    /// The line left its connection waiting (a blocked read).
    pub blocked: bool,
}

impl CommandEvent {
    /// The event for a line and its output.
    pub fn new(input: &str, conn: &str, output: &[OutputView], blocked: bool) -> CommandEvent {
        CommandEvent {
            input: input.to_owned(),
            conn: conn.to_owned(),
            reply: OutputView::printed(output),
            ok: OutputView::all_ok(output),
            blocked,
        }
    }
}

/// The `ready` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadyEvent {
    /// The mode's name.
    pub mode: &'static str,
    /// The profile the widget answers as (in lesson modes, the lesson's).
    pub profile: String,
    /// The lesson's id (lesson modes).
    pub lesson: Option<String>,
    /// The lesson's version (lesson modes).
    pub version: Option<u32>,
    /// The tasks the widget plays (lesson modes; quiz mode plays only the questions).
    pub tasks: usize,
    /// The attempt (lesson modes): with the lesson it fixes the variant and the order options
    /// are shown in, so a grader can replay the learner's answers.
    pub attempt: Option<u32>,
    /// The variant played (lesson modes; 0 is the lesson as written).
    pub variant: Option<usize>,
}

/// The `error` event, for problems found after the widget started (a lesson step refused).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorEvent {
    /// What went wrong, in words.
    pub message: String,
}

/// The `error` event for a `setup` line that printed an error. The widget still becomes
/// ready: like redis-cli running a script, the other lines ran, and the console shows the
/// error where the line is; the event tells the page's author, who never sees that console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SetupErrorEvent {
    /// What went wrong, in words.
    pub message: String,
    /// The line's place in `setup`, from 0.
    pub index: usize,
    /// The line as written.
    pub input: String,
    /// What it printed: the server's error.
    pub reply: String,
}

impl SetupErrorEvent {
    /// The event for setup line `index` when what it printed holds an error.
    pub fn new(index: usize, input: &str, output: &[OutputView]) -> Option<SetupErrorEvent> {
        if OutputView::all_ok(output) {
            return None;
        }
        let reply = OutputView::printed(output);
        Some(SetupErrorEvent {
            message: format!("setup[{index}] failed: `{}` printed {reply}", input.trim()),
            index,
            input: input.to_owned(),
            reply,
        })
    }
}

/// The most a task scores.
pub const TASK_MAX: u32 = 3;

/// A solved reach-state task's score: [`TASK_MAX`], one less for using hints, one less for
/// more commands than par, and 1 whenever the solution was shown.
pub fn task_score(commands: usize, par: usize, hints_used: usize, solution_viewed: bool) -> u32 {
    if solution_viewed {
        return 1;
    }
    TASK_MAX - u32::from(hints_used > 0) - u32::from(commands > par)
}

/// The most a task scores: [`TASK_MAX`] for a reach-state task, 1 for a question.
pub fn task_max(question: bool) -> u32 {
    if question {
        1
    } else {
        TASK_MAX
    }
}

/// A question's score once it is answered right: 1 when no answer before was wrong and its
/// reply was not shown first.
pub fn question_score(wrong: usize, solution_viewed: bool) -> u32 {
    u32::from(wrong == 0 && !solution_viewed)
}

/// The `check` event: Check on a reach-state task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckEvent {
    /// The task's place among the tasks the widget plays, from 0 (see [`TaskCompleteEvent::task`]).
    pub task: usize,
    /// The task's index in the lesson file, as the grader numbers tasks.
    #[serde(rename = "lessonTask")]
    pub lesson_task: usize,
    /// Every check passed.
    pub passed: bool,
    /// The failing checks' messages.
    pub failed: Vec<String>,
    /// When the work matches a wrong path the lesson foresaw, what it says about it.
    pub misconception: Option<String>,
    /// The hints the failing checks carry.
    pub hints: Vec<String>,
    /// State-changing commands run in the task so far (reads are free).
    pub commands: usize,
    /// The task's par.
    pub par: usize,
}

/// The session of the task being played, as a receipt records it (after a passing Check,
/// and for the task left unfinished): what re-grades it with the grader's `checkLog`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskSession {
    /// The task's index in the lesson file.
    pub task: usize,
    /// For a task that continued the learner's own session, the logs of the earlier tasks of
    /// its chain it continued from, first task first (`null` where one started from the
    /// reference solutions; empty when the task did not continue): `checkLog`'s `earlier`.
    pub base: Vec<Option<String>>,
    /// What the learner ran since the task started, one console line per line (`name>
    /// COMMAND`, `:clock +MS`).
    pub log: String,
    /// Per task of the lesson file, the hints shown, so a receipt keeps them for tasks not
    /// finished yet (a resumed attempt still counts them).
    pub hints: Vec<usize>,
    /// The tasks whose solution was shown (the same reason).
    pub solutions: Vec<usize>,
}

/// The `task-complete` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskCompleteEvent {
    /// The task's place among the tasks the widget plays, from 0: what the learner sees as
    /// task (or question) 1 is 0 in every mode, whichever task of the lesson it is (quiz mode
    /// plays only the lesson's questions).
    pub task: usize,
    /// The task's index in the lesson file, as the grader numbers tasks.
    pub lesson_task: usize,
    /// Its score.
    pub score: u32,
    /// The most it could score.
    pub max: u32,
    /// Commands run (0 for questions).
    pub commands: usize,
    /// Par (0 for questions).
    pub par: usize,
    /// Hints shown.
    pub hints_used: usize,
    /// The solution was shown.
    pub solution_viewed: bool,
}

/// The `quiz-answer` event: an answer to a question. Option and step numbers are the
/// lesson's (as written), whatever order they were shown in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuizAnswerEvent {
    /// The task's place among the tasks the widget plays, from 0 (see [`TaskCompleteEvent::task`]).
    pub task: usize,
    /// The task's index in the lesson file, as the grader numbers tasks.
    #[serde(rename = "lessonTask")]
    pub lesson_task: usize,
    /// The chosen option (predict, single choice).
    pub option: Option<usize>,
    /// The chosen options (multiple choice).
    pub options: Option<Vec<usize>>,
    /// The steps in the learner's order (order tasks).
    pub order: Option<Vec<usize>>,
    /// The typed reply or number.
    pub typed: Option<String>,
    /// Whether it was right.
    pub correct: bool,
    /// Why.
    pub why: String,
}

/// The `progress` and `lesson-complete` events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProgressEvent {
    /// The lesson's id.
    pub lesson: String,
    /// Tasks completed.
    pub done: usize,
    /// Tasks played.
    pub total: usize,
    /// Points so far.
    pub score: u32,
    /// Points possible.
    pub max: u32,
}

/// The value named `value` among `all`, or which names there are.
fn choice<T: Copy>(value: &str, all: &[T], name: fn(T) -> &'static str) -> Result<T, String> {
    all.iter().copied().find(|&v| name(v) == value).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&v| name(v)).collect();
        format!("unknown variant `{value}`, expected one of {}", quoted(&names))
    })
}

/// A yes/no option: `true` or `false`.
fn flag(name: &str, value: &str) -> Result<bool, String> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{name} must be true or false, not `{value}`")),
    }
}

impl Mode {
    /// Every mode, in the order errors list them.
    pub const ALL: [Mode; 5] = [Mode::Sandbox, Mode::Readonly, Mode::Lesson, Mode::Quiz, Mode::Player];

    /// Its name in options and events.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sandbox => "sandbox",
            Mode::Readonly => "readonly",
            Mode::Lesson => "lesson",
            Mode::Quiz => "quiz",
            Mode::Player => "player",
        }
    }

    /// Whether the mode plays a lesson.
    pub fn has_lesson(self) -> bool {
        matches!(self, Mode::Lesson | Mode::Quiz | Mode::Player)
    }
}

impl SolutionPolicy {
    /// Every policy, in the order errors list them.
    pub const ALL: [SolutionPolicy; 3] = [SolutionPolicy::Allow, SolutionPolicy::Confirm, SolutionPolicy::Never];

    /// Its name in options.
    pub fn name(self) -> &'static str {
        match self {
            SolutionPolicy::Allow => "allow",
            SolutionPolicy::Confirm => "confirm",
            SolutionPolicy::Never => "never",
        }
    }
}

impl Layout {
    /// Every layout, in the order errors list them.
    pub const ALL: [Layout; 3] = [Layout::Console, Layout::Pictures, Layout::Both];

    /// Its name in options.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Console => "console",
            Layout::Pictures => "pictures",
            Layout::Both => "both",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OutputKind;

    #[test]
    fn options_are_read_strictly() {
        let o = EmbedOptions::parse("mode=readonly&setup=XADD+s+1-0+f+v&setup=XLEN%20s&layout=pictures").unwrap();
        assert_eq!((o.mode, o.layout), (Mode::Readonly, Layout::Pictures));
        assert_eq!(o.setup, ["XADD s 1-0 f v", "XLEN s"]);
        let plain = EmbedOptions::parse("").unwrap();
        assert_eq!(plain, EmbedOptions::default());
        assert_eq!(
            (plain.mode, plain.layout, plain.hints, plain.solution, plain.attempt),
            (Mode::Sandbox, Layout::Both, true, SolutionPolicy::Confirm, None)
        );
        assert_eq!(
            EmbedOptions::parse("mode=arcade").unwrap_err(),
            "Bad options: unknown variant `arcade`, expected one of `sandbox`, `readonly`, `lesson`, `quiz`, `player`"
        );
        let colour = EmbedOptions::parse("colour=red").unwrap_err();
        assert!(colour.starts_with("Bad options: unknown field `colour`, expected one of `mode`, `setup`"), "{colour}");
        assert!(EmbedOptions::parse("profile=redis-6").unwrap_err().contains("unknown profile 'redis-6'"));
        assert_eq!(
            EmbedOptions::parse("hints=yes").unwrap_err(),
            "Bad options: hints must be true or false, not `yes`"
        );
        assert!(EmbedOptions::parse("attempt=-1").unwrap_err().contains("attempt must be a whole number"));
        assert!(EmbedOptions::parse("state=%E2%28").unwrap_err().contains("`state` is not well encoded"));
        assert_eq!(EmbedOptions::parse("mode=quiz").unwrap_err(), "mode quiz needs a lesson");
        assert_eq!(EmbedOptions::parse("lesson=id").unwrap_err(), "mode sandbox takes no lesson");
        let quiz = EmbedOptions::parse(
            "mode=quiz&lesson=id+%3D+1%0Atitle+%3D+%22a%26b%22&file=x.toml&solution=never&attempt=2",
        )
        .unwrap();
        assert_eq!((quiz.solution, quiz.hints, quiz.attempt), (SolutionPolicy::Never, true, Some(2)));
        assert_eq!((quiz.lesson.as_deref(), quiz.file.as_deref()), (Some("id = 1\ntitle = \"a&b\""), Some("x.toml")));
        let lesson = EmbedOptions::parse("mode=lesson&lesson=x&hints=false&layout=console&profile=redis-8.2").unwrap();
        assert_eq!(
            (lesson.hints, lesson.layout, lesson.base_spec().profile),
            (false, Layout::Console, Profile::Redis82)
        );
        assert_eq!(
            EmbedOptions::parse("mode=player&lesson=x&setup=PING").unwrap_err(),
            "mode player takes no setup: the lesson sets itself up"
        );
    }

    #[test]
    fn scores_fall_with_help_and_extra_commands() {
        assert_eq!(task_score(1, 1, 0, false), 3);
        assert_eq!(task_score(2, 1, 0, false), 2);
        assert_eq!(task_score(2, 1, 2, false), 1);
        assert_eq!(task_score(1, 1, 0, true), 1);
    }

    #[test]
    fn command_events_carry_the_text_and_whether_it_failed() {
        let out = [OutputView { to: None, text: "(error) ERR nope".into(), kind: OutputKind::Error }];
        let e = CommandEvent::new("XADD", "alice", &out, false);
        assert_eq!((e.reply.as_str(), e.ok), ("(error) ERR nope", false));
    }

    #[test]
    fn a_failed_setup_line_is_named_by_its_place_and_text() {
        let failed = [OutputView { to: None, text: "(error) ERR syntax error".into(), kind: OutputKind::Error }];
        let e = SetupErrorEvent::new(2, "XGROUP CREATE s g 0 BOGUS", &failed).unwrap();
        assert_eq!(e.message, "setup[2] failed: `XGROUP CREATE s g 0 BOGUS` printed (error) ERR syntax error");
        assert_eq!(
            (e.index, e.input.as_str(), e.reply.as_str()),
            (2, "XGROUP CREATE s g 0 BOGUS", "(error) ERR syntax error")
        );
        let ok = [OutputView { to: None, text: "OK".into(), kind: OutputKind::Reply }];
        assert_eq!(SetupErrorEvent::new(0, "XGROUP CREATE s g 0", &ok), None);
        assert_eq!(SetupErrorEvent::new(0, ":clock +1s", &[]), None, "a line that prints nothing did not fail");
    }
}
