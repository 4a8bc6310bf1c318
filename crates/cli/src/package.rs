//! What the course-platform packages share (`package cmi5`, `package scorm`): reading the
//! lessons named on the command line, and XML text.

use std::path::Path;

use streamlab_lessons::{parse_lesson, Lesson};

/// A lesson as read, and the file's text (a self-contained package ships the file itself).
#[derive(Debug, Clone, PartialEq)]
pub struct LessonFile {
    pub lesson: Lesson,
    pub text: String,
}

/// The lessons `ids` from `dir` (`<id>.toml`, as the repository keeps them), and the
/// problems: ids that are not lesson ids or have no file, files that do not parse.
pub fn read_lessons(dir: &Path, ids: &[String]) -> (Vec<LessonFile>, Vec<String>) {
    let (mut lessons, mut problems) = (Vec::new(), Vec::new());
    for id in ids {
        // Checked before it names a file: an id is also a path and, in a package, a file name.
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
            problems.push(format!("\"{id}\" is not a lesson id (lower-case letters, digits and -)"));
            continue;
        }
        let path = dir.join(format!("{id}.toml"));
        let name = path.display().to_string();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                problems.push(format!("no lesson \"{id}\" (no {name})"));
                continue;
            }
            Err(error) => {
                problems.push(format!("{name}: {error}"));
                continue;
            }
        };
        match parse_lesson(&name, &text) {
            Ok(lesson) if lesson.id == *id => lessons.push(LessonFile { lesson, text }),
            Ok(lesson) => problems.push(format!("{name} is the lesson \"{}\", not \"{id}\"", lesson.id)),
            Err(errors) => {
                problems.push(errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"));
            }
        }
    }
    (lessons, problems)
}

/// Text for an XML attribute or element.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

/// A command line's `--option value` pairs, in order.
pub type Pairs = Vec<(String, String)>;

/// A package command's arguments: its `--option value` pairs, and the lesson ids (every
/// argument not starting with `-`).
pub fn options(args: &[String]) -> Result<(Pairs, Vec<String>), String> {
    let (mut options, mut ids) = (Vec::new(), Vec::new());
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if !arg.starts_with('-') {
            ids.push(arg.clone());
            continue;
        }
        let value = rest.next().ok_or_else(|| format!("{arg} needs a value"))?;
        options.push((arg.clone(), value.clone()));
    }
    Ok((options, ids))
}

/// `--mode`'s value: whether the package plays the lesson's questions only.
pub fn quiz_mode(value: &str) -> Result<bool, String> {
    match value {
        "quiz" => Ok(true),
        "lesson" => Ok(false),
        _ => Err(format!("--mode must be lesson or quiz, not \"{value}\"")),
    }
}

/// `--mastery`'s value: a scaled score from 0 to 1.
pub fn mastery(value: &str) -> Result<f64, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|m| (0.0..=1.0).contains(m))
        .ok_or_else(|| format!("--mastery must be a number from 0 to 1, not \"{value}\""))
}

/// `--base`'s value: an http(s) URL, ending in `/`.
pub fn base_url(base: &str) -> Result<String, String> {
    if !(base.starts_with("https://") || base.starts_with("http://")) || base.contains(['?', '#', ' ']) {
        return Err(format!("--base must be an http(s) URL without query or fragment, not \"{base}\""));
    }
    Ok(if base.ends_with('/') { base.to_owned() } else { format!("{base}/") })
}
