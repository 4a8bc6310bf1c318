//! `streamlab package cmi5`: a cmi5 course structure (`cmi5.xml`, cmi5 spec section 13) with
//! one assignable unit per lesson, each launched as the hosted `cmi5.html?lesson=ID`. The LMS
//! imports the file; the page (web/assets/cmi5.html) follows the launch protocol.

use std::fmt::Write as _;
use streamlab_lessons::Lesson;

use crate::package::{self, escape};

/// cmi5's course structure namespace.
pub const NAMESPACE: &str = "https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd";

/// How an AU satisfies its move-on criteria (cmi5 spec 13.1.4, the ones that make sense for
/// a lesson scored in the page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveOn {
    /// `completed` and `passed` are both needed.
    CompletedAndPassed,
    /// `completed` is enough; passed or failed is still reported.
    Completed,
}

impl MoveOn {
    fn name(self) -> &'static str {
        match self {
            MoveOn::CompletedAndPassed => "CompletedAndPassed",
            MoveOn::Completed => "Completed",
        }
    }
}

/// What the author chose.
#[derive(Debug, Clone, PartialEq)]
pub struct Course {
    /// Where `cmi5.html` is hosted, ending in `/`.
    pub base: String,
    /// The course's IRI.
    pub id: String,
    /// The course's title.
    pub title: String,
    /// The scaled score (0 to 1) each AU needs to be passed.
    pub mastery: f64,
    pub move_on: MoveOn,
    /// Each AU plays the lesson's questions only (the widget's quiz mode).
    pub quiz: bool,
}

/// `cmi5.xml` for `lessons`, in the order given.
pub fn course_xml(course: &Course, lessons: &[Lesson]) -> String {
    let mut xml = String::new();
    let _ = writeln!(xml, r#"<?xml version="1.0" encoding="utf-8"?>"#);
    let _ = writeln!(xml, r#"<courseStructure xmlns="{NAMESPACE}">"#);
    let _ = writeln!(xml, r#"  <course id="{}">"#, escape(&course.id));
    langstring(&mut xml, "    ", "title", &course.title);
    let titles: Vec<&str> = lessons.iter().map(|l| l.title.as_str()).collect();
    langstring(&mut xml, "    ", "description", &titles.join("; "));
    let _ = writeln!(xml, "  </course>");
    for lesson in lessons {
        let (url, id) = unit(course, &lesson.id);
        let _ = writeln!(
            xml,
            r#"  <au id="{}" moveOn="{}" masteryScore="{}" launchMethod="AnyWindow">"#,
            escape(&id),
            course.move_on.name(),
            course.mastery
        );
        langstring(&mut xml, "    ", "title", &lesson.title);
        langstring(&mut xml, "    ", "description", &lesson.summary);
        let _ = writeln!(xml, "    <url>{}</url>", escape(&url));
        let _ = writeln!(xml, "  </au>");
    }
    let _ = writeln!(xml, "</courseStructure>");
    xml
}

/// An AU's launch URL and IRI. A quiz is another activity than the whole lesson, so the LMS
/// keeps their results apart.
fn unit(course: &Course, lesson: &str) -> (String, String) {
    let id = query(lesson);
    if course.quiz {
        (format!("{}cmi5.html?lesson={id}&mode=quiz", course.base), format!("{}lessons/{id}/quiz", course.base))
    } else {
        (format!("{}cmi5.html?lesson={id}", course.base), format!("{}lessons/{id}", course.base))
    }
}

fn langstring(xml: &mut String, indent: &str, tag: &str, text: &str) {
    let _ = writeln!(xml, r#"{indent}<{tag}><langstring lang="en-US">{}</langstring></{tag}>"#, escape(text.trim()));
}

/// A lesson id as a query value: ids are plain names, but a character outside them must not
/// change the URL's meaning.
fn query(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The options of `streamlab package cmi5`, read: the course, the lesson directory, the ids
/// and where to write (None: standard output).
#[derive(Debug, PartialEq)]
pub struct Args {
    pub course: Course,
    pub dir: String,
    pub ids: Vec<String>,
    pub out: Option<String>,
}

pub const USAGE: &str = "usage: streamlab package cmi5 --base URL [--lessons DIR] [--mastery 0.8]
         [--move-on completed-and-passed|completed] [--mode lesson|quiz]
         [--course-id IRI] [--title TEXT] [-o FILE] ID...";

/// Reads the arguments after `package cmi5`.
pub fn parse_args(args: &[String]) -> Result<Args, String> {
    let (mut base, mut dir, mut mastery, mut move_on, mut quiz) =
        (None, "lessons".to_owned(), 0.8, MoveOn::CompletedAndPassed, false);
    let (mut id, mut title, mut out) = (None, None, None);
    let (options, ids) = package::options(args)?;
    for (arg, value) in options {
        match arg.as_str() {
            "--base" => base = Some(value),
            "--lessons" => dir = value,
            "--mastery" => mastery = package::mastery(&value)?,
            "--move-on" => {
                move_on = match value.as_str() {
                    "completed-and-passed" => MoveOn::CompletedAndPassed,
                    "completed" => MoveOn::Completed,
                    _ => return Err(format!("--move-on must be completed-and-passed or completed, not \"{value}\"")),
                };
            }
            "--mode" => quiz = package::quiz_mode(&value)?,
            "--course-id" => id = Some(value),
            "--title" => title = Some(value),
            "-o" | "--out" => out = Some(value),
            _ => return Err(format!("unknown option {arg}")),
        }
    }
    let base = base.ok_or("--base is needed: the URL where StreamLab's dist/ (with cmi5.html) is hosted")?;
    let base = package::base_url(&base)?;
    if ids.is_empty() {
        return Err("name at least one lesson id".to_owned());
    }
    // The same list of lessons gives the same course IRI, so a re-import updates the course.
    let id =
        id.unwrap_or_else(|| format!("{base}courses/{}", ids.iter().map(|i| query(i)).collect::<Vec<_>>().join("+")));
    let title = title.unwrap_or_else(|| "StreamLab: Redis Streams".to_owned());
    Ok(Args { course: Course { base, id, title, mastery, move_on, quiz }, dir, ids, out })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package::read_lessons;
    use std::path::Path;
    use streamlab_lessons::parse_lesson;

    fn lesson(id: &str, title: &str, summary: &str) -> Lesson {
        let text = format!(
            "id = \"{id}\"\nversion = 1\ntitle = \"{title}\"\nsummary = \"{summary}\"\nprofile = \"redis-8.2\"\nminutes = 1\n\n\
             [[task]]\nkind = \"choice\"\ntitle = \"Q\"\nprompt = \"Which?\"\noptions = [\n  {{ text = \"A\", correct = true, why = \"Yes.\" }},\n  {{ text = \"B\", why = \"No.\" }},\n]\n"
        );
        parse_lesson("t.toml", &text).unwrap_or_else(|e| panic!("{e:?}"))
    }

    #[test]
    fn one_au_per_lesson_with_escaped_text() {
        let args: Vec<String> = [
            "--base",
            "https://lab.example/sl",
            "--mastery",
            "0.75",
            "--mode",
            "quiz",
            "--title",
            "Streams & <groups>",
            "a",
            "b",
        ]
        .map(String::from)
        .to_vec();
        let args = parse_args(&args).unwrap();
        assert_eq!(args.ids, ["a", "b"]);
        assert_eq!(args.dir, "lessons");
        let lessons = [lesson("a", "Acks & \\\"deletes\\\"", "XACK <id>'s job."), lesson("b", "B", "Second.")];
        let xml = course_xml(&args.course, &lessons);
        assert_eq!(
            xml,
            r#"<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="https://lab.example/sl/courses/a+b">
    <title><langstring lang="en-US">Streams &amp; &lt;groups&gt;</langstring></title>
    <description><langstring lang="en-US">Acks &amp; &quot;deletes&quot;; B</langstring></description>
  </course>
  <au id="https://lab.example/sl/lessons/a/quiz" moveOn="CompletedAndPassed" masteryScore="0.75" launchMethod="AnyWindow">
    <title><langstring lang="en-US">Acks &amp; &quot;deletes&quot;</langstring></title>
    <description><langstring lang="en-US">XACK &lt;id&gt;&apos;s job.</langstring></description>
    <url>https://lab.example/sl/cmi5.html?lesson=a&amp;mode=quiz</url>
  </au>
  <au id="https://lab.example/sl/lessons/b/quiz" moveOn="CompletedAndPassed" masteryScore="0.75" launchMethod="AnyWindow">
    <title><langstring lang="en-US">B</langstring></title>
    <description><langstring lang="en-US">Second.</langstring></description>
    <url>https://lab.example/sl/cmi5.html?lesson=b&amp;mode=quiz</url>
  </au>
</courseStructure>
"#
        );
    }

    #[test]
    fn lesson_mode_and_completed() {
        let args: Vec<String> =
            ["--base", "https://lab.example/", "--move-on", "completed", "x y"].map(String::from).to_vec();
        let course = parse_args(&args).unwrap().course;
        assert_eq!(course.move_on, MoveOn::Completed);
        assert_eq!(
            unit(&course, "x y"),
            ("https://lab.example/cmi5.html?lesson=x%20y".into(), "https://lab.example/lessons/x%20y".into())
        );
    }

    #[test]
    fn wrong_arguments_are_named() {
        let run = |a: &[&str]| parse_args(&a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()).unwrap_err();
        assert!(run(&["a"]).starts_with("--base is needed"));
        assert!(run(&["--base", "lab.example", "a"]).starts_with("--base must be an http(s) URL"));
        assert_eq!(run(&["--base", "https://l/"]), "name at least one lesson id");
        assert_eq!(
            run(&["--base", "https://l/", "--mastery", "2", "a"]),
            "--mastery must be a number from 0 to 1, not \"2\""
        );
        assert_eq!(run(&["--base", "https://l/", "--colour", "x", "a"]), "unknown option --colour");
        assert_eq!(run(&["--base"]), "--base needs a value");
    }

    #[test]
    fn the_repository_lessons_and_a_missing_one() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lessons");
        let ids = ["streams-and-ids".to_owned(), "no-such-lesson".to_owned()];
        let (lessons, problems) = read_lessons(&dir, &ids);
        assert_eq!(lessons.iter().map(|l| l.lesson.id.as_str()).collect::<Vec<_>>(), ["streams-and-ids"]);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("no lesson \"no-such-lesson\""), "{problems:?}");
    }
}
