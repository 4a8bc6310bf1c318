//! Questions: answering predict, choice (one or several right options), numeric and order
//! tasks, and the order options are shown in. The order is shuffled per attempt so the right
//! option has no usual place, and deterministically, so an answer logged with its attempt
//! replays to the same judgement.

use crate::check::{measure_on, predicted_reply, CheckError};
use crate::model::{Lesson, NumericAnswer, TaskKind};
use crate::params;

/// An answer to a question. Option and step numbers are the lesson's (as written), whatever
/// order they were shown in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The chosen option (predict, or choice with one right option).
    Option(usize),
    /// Every chosen option (choice with `multiple`).
    Options(Vec<usize>),
    /// The reply or number as typed (predict without options, numeric).
    Typed(String),
    /// The steps in the order the learner put them (order).
    Order(Vec<usize>),
}

/// The result of answering a question.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Answered {
    /// Whether the answer is right.
    pub correct: bool,
    /// What the command really prints (predict tasks), or the right number once it was given
    /// (numeric); empty otherwise.
    pub reply: String,
    /// Why: the chosen option's `why`, the task's `explain`, or for a wrong multiple choice or
    /// order, how far off it is (without giving the answer away).
    pub why: String,
}

/// Judges an answer to question `task` on `variant`.
pub fn check_answer(lesson: &Lesson, task: usize, variant: usize, answer: &Answer) -> Result<Answered, CheckError> {
    let kind = &lesson.task(task)?.kind;
    let v = lesson.variant(variant)?;
    let multiple = matches!(kind, TaskKind::Choice(c) if c.multiple);
    let (correct, reply, why) = match (kind, answer) {
        // One option, of a predict or a single choice (a predict also shows the real reply).
        (TaskKind::Predict(_) | TaskKind::Choice(_), Answer::Option(n)) if !multiple => {
            let option = kind.options().get(*n).ok_or(CheckError::NoSuchOption(*n))?;
            let reply = match kind {
                TaskKind::Predict(_) => predicted_reply(lesson, task, variant)?,
                _ => String::new(),
            };
            (option.correct, reply, v.apply_prose(&option.why))
        }
        (TaskKind::Predict(predict), Answer::Typed(text)) => {
            let reply = predicted_reply(lesson, task, variant)?;
            (normalise_reply(text) == normalise_reply(&reply), reply, v.apply_prose(&predict.explain))
        }
        (TaskKind::Choice(choice), Answer::Options(chosen)) if multiple => {
            if let Some(&n) = chosen.iter().find(|&&n| n >= choice.options.len()) {
                return Err(CheckError::NoSuchOption(n));
            }
            let (mut missed, mut extra) = (0, 0);
            for (n, o) in choice.options.iter().enumerate() {
                match (o.correct, chosen.contains(&n)) {
                    (true, false) => missed += 1,
                    (false, true) => extra += 1,
                    _ => {}
                }
            }
            let wrong = count(extra, "chosen option is", "chosen options are");
            let missing = count(missed, "right option is", "right options are");
            let why = match (missed, extra) {
                (0, 0) => "Every right option, and no wrong one.".to_owned(),
                (_, 0) => format!("Right so far, but {missing} missing."),
                (0, _) => format!("{wrong} wrong."),
                _ => format!("{wrong} wrong, and {missing} missing."),
            };
            (missed == 0 && extra == 0, String::new(), why)
        }
        (TaskKind::Numeric(numeric), Answer::Typed(text)) => {
            let right = numeric_answer(lesson, task, variant)?;
            let text = text.trim();
            let given = params::parse_i64(text.strip_prefix("(integer)").unwrap_or(text).trim());
            if given == Some(right) {
                (true, right.to_string(), v.apply_prose(&numeric.explain))
            } else if given.is_none() {
                (false, String::new(), "The answer is a whole number.".to_owned())
            } else {
                (false, String::new(), "Not that number: look at the state again.".to_owned())
            }
        }
        (TaskKind::Order(order), Answer::Order(steps)) => {
            let n = order.steps.len();
            let mut seen = vec![false; n];
            for &s in steps {
                match seen.get_mut(s) {
                    Some(slot) if !*slot => *slot = true,
                    _ => return Err(CheckError::NoSuchOption(s)),
                }
            }
            if steps.len() != n {
                return Err(CheckError::NoSuchOption(n));
            }
            let mut placed = 0;
            for (at, &s) in steps.iter().enumerate() {
                placed += usize::from(at == s);
            }
            if placed == n {
                (true, String::new(), v.apply_prose(&order.explain))
            } else {
                (false, String::new(), format!("{placed} of {n} steps are in the right place."))
            }
        }
        (kind, _) => {
            let expected = match kind {
                TaskKind::Predict(_) => "predict (an option or a typed reply)",
                TaskKind::Choice(_) if multiple => "multiple choice (a set of options)",
                TaskKind::Choice(_) => "choice (one option)",
                TaskKind::Numeric(_) => "numeric (a typed number)",
                TaskKind::Order(_) => "order (the steps in order)",
                TaskKind::ReachState(_) => "question",
            };
            return Err(CheckError::WrongKind { task, expected });
        }
    };
    Ok(Answered { correct, reply, why })
}

fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Why option `option` of a predict or choice task is right or wrong (the player shows every
/// option's once the question is settled).
pub fn option_why(lesson: &Lesson, task: usize, variant: usize, option: usize) -> Result<(bool, String), CheckError> {
    let options = lesson.task(task)?.kind.options();
    let chosen = options.get(option).ok_or(CheckError::NoSuchOption(option))?;
    Ok((chosen.correct, lesson.variant(variant)?.apply_prose(&chosen.why)))
}

/// The right number of a numeric question on a variant.
pub fn numeric_answer(lesson: &Lesson, task: usize, variant: usize) -> Result<i64, CheckError> {
    let TaskKind::Numeric(numeric) = &lesson.task(task)?.kind else {
        return Err(CheckError::WrongKind { task, expected: "numeric" });
    };
    let v = lesson.variant(variant)?;
    match &numeric.answer {
        NumericAnswer::Expr(expr) => params::eval(expr, &v.params).map_err(|_| CheckError::NoSuchVariant(variant)),
        NumericAnswer::Measure(subject) => {
            let console = lesson.task_start(task, variant)?;
            measure_on(&subject.map_text(|t| v.apply(t)), console.session()).ok_or(CheckError::NoSuchVariant(variant))
        }
    }
}

/// The order a question's options (or an order task's steps) are shown in on `attempt`: a
/// permutation of their indices. An order task's steps never come in the right order.
pub fn shown_order(lesson: &Lesson, task: usize, attempt: u32) -> Vec<usize> {
    let Ok(t) = lesson.task(task) else { return Vec::new() };
    let n = match &t.kind {
        TaskKind::Order(order) => order.steps.len(),
        kind => kind.options().len(),
    };
    let mut order = Vec::new();
    for i in 0..n {
        order.push(i);
    }
    // FNV-1a over the lesson id, then splitmix64 steps: small, and the same in every build.
    let mut seed = 0xcbf2_9ce4_8422_2325_u64;
    for b in lesson.id.bytes() {
        seed = (seed ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    seed ^= (u64::from(attempt) << 32) | task as u64;
    let mut next = || {
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        // `j <= i < n`: the bound lets the compiler drop `swap`'s bounds checks.
        if i < order.len() {
            order.swap(i, j);
        }
    }
    if matches!(t.kind, TaskKind::Order(_)) && n > 1 && order.iter().enumerate().all(|(at, &s)| at == s) {
        // The identity, turned by one (written out: `rotate_left` is more code).
        for (at, slot) in order.iter_mut().enumerate() {
            *slot = if at + 1 == n { 0 } else { at + 1 };
        }
    }
    order
}

/// Normalises a typed reply for comparison: no `(integer) ` or quotes, whitespace collapsed,
/// case kept.
pub fn normalise_reply(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = line.trim();
        let line = line.strip_prefix("(integer) ").unwrap_or(line);
        let line = line.strip_prefix('"').and_then(|l| l.strip_suffix('"')).unwrap_or(line);
        let line = if line == "(nil)" { "nil" } else { line };
        // Words single-spaced, lines on their own lines; a line left empty is dropped.
        let mut separator = if out.is_empty() { "" } else { "\n" };
        for word in line.split_whitespace() {
            out.push_str(separator);
            out.push_str(word);
            separator = " ";
        }
    }
    out
}
