//! `streamlab package scorm`: a SCORM 1.2 or SCORM 2004 (4th edition) package of lessons, one
//! SCO per lesson. Each SCO is a launch page of its own (`ID.html`, written here: its lesson,
//! mode, version and pass mark are in a `<meta>`, since LMSs differ in passing a query or an
//! item's `parameters` to a launch) running `scorm.js`, which talks to the LMS's API and plays
//! the lesson in an embed.js widget. Self-contained: the player's files from the built site
//! are in the zip. Thin: the page loads embed.js and scorm.js from the hosted StreamLab, whose
//! embed.html frame plays the lesson.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use streamlab_lessons::{Lesson, TaskKind};

use crate::package::{self, escape, LessonFile};
use crate::zip::{crc32, Zip};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    Scorm12,
    Scorm2004,
}

impl Version {
    fn name(self) -> &'static str {
        match self {
            Version::Scorm12 => "1.2",
            Version::Scorm2004 => "2004",
        }
    }

    /// How many characters `cmi.suspend_data` holds (1.2: CMIString4096; 2004 4th edition:
    /// characterstring, SPM 64,000).
    pub fn suspend_limit(self) -> usize {
        match self {
            Version::Scorm12 => 4096,
            Version::Scorm2004 => 64000,
        }
    }
}

/// Where the player comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Form {
    /// The built site's player files inside the package (`--site`, `dist` by default).
    SelfContained { site: PathBuf },
    /// embed.js and scorm.js from StreamLab hosted at `base` (ending in `/`).
    Thin { base: String },
}

/// What the author chose.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    pub version: Version,
    pub form: Form,
    /// The organization's title, what the LMS names the course.
    pub title: String,
    /// The scaled score (0 to 1) a lesson needs to be passed.
    pub mastery: f64,
    /// Each SCO plays the lesson's questions only (the widget's quiz mode).
    pub quiz: bool,
}

/// The files a self-contained package takes from the site: what embed.js loads to play a
/// lesson in the page (the wasm and its glue, the widget's styles, receipt.js for
/// getReceipt and resume) and the launch page's scripts (xapi.js lends scorm.js the
/// interaction types and durations it gives statements). Not embed.html: the package is
/// the LMS's origin, so widgets run in the page.
pub const PLAYER: &[&str] = &[
    "embed.js",
    "embed.css",
    "style.css",
    "streamlab.js",
    "streamlab_bg.wasm",
    "grader/receipt.js",
    "xapi.js",
    "scorm.js",
];

impl Package {
    fn mode(&self) -> &'static str {
        if self.quiz {
            "quiz"
        } else {
            "lesson"
        }
    }

    /// The same lessons, mode and version give the same identifier, so an LMS re-importing
    /// the package updates the course instead of adding another.
    fn identifier(&self, lessons: &[LessonFile]) -> String {
        let ids: Vec<&str> = lessons.iter().map(|l| l.lesson.id.as_str()).collect();
        format!("streamlab.{}.{}", self.mode(), ids.join("."))
    }

    /// Where the launch page's scripts are: beside it, or on StreamLab's host.
    fn scripts(&self) -> &str {
        match &self.form {
            Form::SelfContained { .. } => "",
            Form::Thin { base } => base,
        }
    }
}

/// The launch page of `lesson`'s SCO. Its Content-Security-Policy allows no inline or
/// evaluated script, and in the thin form only StreamLab's host beside the package's own.
pub fn launch_page(p: &Package, lesson: &Lesson) -> String {
    let csp = match &p.form {
        Form::SelfContained { .. } => "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'".to_owned(),
        Form::Thin { base } => {
            let host = origin(base);
            format!("default-src 'self'; script-src {host}; style-src 'self' 'unsafe-inline' {host}; frame-src {host}; img-src 'self' data:; connect-src 'self' {host}")
        }
    };
    let config = format!("scorm={}&lesson={}&mode={}&mastery={}", p.version.name(), lesson.id, p.mode(), p.mastery);
    let scripts = escape(p.scripts());
    let from = match &p.form {
        Form::SelfContained { .. } => "this package".to_owned(),
        Form::Thin { base } => escape(base),
    };
    let title = escape(lesson.title.trim());
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta http-equiv="Content-Security-Policy" content="{csp}">
  <meta name="streamlab-sco" content="{config}">
  <title>{title}</title>
  <link rel="icon" href="data:,">
  <style>
    body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 1100px; margin: 0 auto; padding: 0.75rem 1rem; color: #1d2430; background: #fff; }}
    header {{ display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 1rem; border-bottom: 1px solid #d5dae2; padding-bottom: 0.5rem; margin-bottom: 0.75rem; }}
    header h1 {{ font-size: 1.15rem; margin: 0; flex: 1 1 16rem; }}
    #status {{ margin: 0; color: #3a4656; }}
    [role=alert] {{ background: #fdecea; border: 1px solid #d93025; color: #7a1c14; padding: 0.75rem 1rem; border-radius: 6px; white-space: pre-line; }}
    #warning {{ background: #fff4e0; border-color: #b06000; color: #5c3300; }}
    /* No script can say that the scripts did not load: this shows unless scorm.js removes it. */
    #stuck {{ opacity: 0; animation: shown 0s 20s forwards; }}
    @keyframes shown {{ to {{ opacity: 1; }} }}
  </style>
  <script src="{scripts}xapi.js"></script>
  <script src="{scripts}embed.js"></script>
  <script src="{scripts}scorm.js" defer></script>
</head>
<body>
  <header>
    <h1>{title}</h1>
    <p id="status" role="status">Loading StreamLab…</p>
  </header>
  <noscript><p role="alert">StreamLab runs Redis Streams inside this page and needs JavaScript and WebAssembly.</p></noscript>
  <p id="stuck" role="alert">StreamLab has not started: its scripts did not load from {from}. If this stays, a network filter or the course platform blocks them; ask your course's administrator.</p>
  <p id="problem" role="alert" hidden></p>
  <p id="warning" role="alert" hidden></p>
  <main id="lab"></main>
</body>
</html>
"#
    )
}

/// `https://host:port` of a base URL (checked to be http(s) by `package::base_url`).
fn origin(base: &str) -> &str {
    let after = base.find("://").map_or(0, |i| i + 3);
    base[after..].find('/').map_or(base, |end| &base[..after + end])
}

/// `imsmanifest.xml`: one organization, one item and SCO resource per lesson in the order
/// given, and (self-contained) one asset resource with the player's files they depend on.
pub fn manifest(p: &Package, lessons: &[LessonFile]) -> String {
    let mut xml = String::new();
    let _ = writeln!(xml, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let identifier = escape(&p.identifier(lessons));
    match p.version {
        Version::Scorm12 => {
            let _ = writeln!(
                xml,
                r#"<manifest identifier="{identifier}" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">"#
            );
            let _ = writeln!(
                xml,
                "  <metadata>\n    <schema>ADL SCORM</schema>\n    <schemaversion>1.2</schemaversion>\n  </metadata>"
            );
        }
        Version::Scorm2004 => {
            let _ = writeln!(
                xml,
                r#"<manifest identifier="{identifier}" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">"#
            );
            let _ = writeln!(xml, "  <metadata>\n    <schema>ADL SCORM</schema>\n    <schemaversion>2004 4th Edition</schemaversion>\n  </metadata>");
        }
    }
    let _ = writeln!(xml, r#"  <organizations default="streamlab">"#);
    let _ = writeln!(xml, r#"    <organization identifier="streamlab">"#);
    let _ = writeln!(xml, "      <title>{}</title>", escape(p.title.trim()));
    for l in lessons {
        let id = &l.lesson.id;
        let _ = writeln!(xml, r#"      <item identifier="item-{id}" identifierref="sco-{id}" isvisible="true">"#);
        let suffix = if p.quiz { " (questions)" } else { "" };
        let _ = writeln!(xml, "        <title>{}{suffix}</title>", escape(l.lesson.title.trim()));
        match p.version {
            // The LMS compares cmi.core.score.raw, a percentage, with it.
            Version::Scorm12 => {
                let _ = writeln!(xml, "        <adlcp:masteryscore>{}</adlcp:masteryscore>", percent(p.mastery));
            }
            // The objective is satisfied by the scaled score reaching the mastery; the page
            // also reports completion and success itself.
            Version::Scorm2004 => {
                let _ = writeln!(xml, "        <imsss:sequencing>\n          <imsss:objectives>");
                let _ = writeln!(
                    xml,
                    r#"            <imsss:primaryObjective objectiveID="mastery" satisfiedByMeasure="true">"#
                );
                let _ = writeln!(
                    xml,
                    "              <imsss:minNormalizedMeasure>{}</imsss:minNormalizedMeasure>",
                    p.mastery
                );
                let _ = writeln!(xml, "            </imsss:primaryObjective>\n          </imsss:objectives>");
                let _ = writeln!(
                    xml,
                    r#"          <imsss:deliveryControls completionSetByContent="true" objectiveSetByContent="true"/>"#
                );
                let _ = writeln!(xml, "        </imsss:sequencing>");
            }
        }
        let _ = writeln!(xml, "      </item>");
    }
    if p.version == Version::Scorm2004 {
        // Learners may open any lesson from the LMS's menu, and Continue/Previous go in order.
        let _ = writeln!(xml, "      <imsss:sequencing>\n        <imsss:controlMode choice=\"true\" flow=\"true\"/>\n      </imsss:sequencing>");
    }
    let _ = writeln!(xml, "    </organization>\n  </organizations>\n  <resources>");
    let kind = match p.version {
        Version::Scorm12 => "adlcp:scormtype",
        Version::Scorm2004 => "adlcp:scormType",
    };
    let own = matches!(p.form, Form::SelfContained { .. });
    for l in lessons {
        let id = &l.lesson.id;
        let _ =
            writeln!(xml, r#"    <resource identifier="sco-{id}" type="webcontent" {kind}="sco" href="{id}.html">"#);
        let _ = writeln!(xml, r#"      <file href="{id}.html"/>"#);
        if own {
            let _ = writeln!(xml, r#"      <file href="lessons/{id}.toml"/>"#);
            let _ = writeln!(xml, r#"      <dependency identifierref="player"/>"#);
        }
        let _ = writeln!(xml, "    </resource>");
    }
    if own {
        let _ = writeln!(xml, r#"    <resource identifier="player" type="webcontent" {kind}="asset">"#);
        for file in PLAYER {
            let _ = writeln!(xml, r#"      <file href="{file}"/>"#);
        }
        let _ = writeln!(xml, "    </resource>");
    }
    let _ = writeln!(xml, "  </resources>\n</manifest>");
    xml
}

/// A scaled score as SCORM 1.2's percentage, to two decimals at most.
fn percent(scaled: f64) -> f64 {
    (scaled * 10000.0).round() / 100.0
}

/// How long, in characters, the receipt (`SL1.` token) of an attempt that does each task by
/// its reference solution is, about: the receipt's text as grader/receipt.js writes it, but
/// with guessed numbers (ids, times, the digest), deflated as a receipt is, then base64. A
/// learner's own receipt holds the commands they ran, wrong tries and looking around included.
pub fn receipt_estimate(lesson: &Lesson, quiz: bool) -> usize {
    let mut text = String::new();
    let digest: String = (0..4u8).map(|i| format!("{:08x}", crc32(format!("{i}{}", lesson.id).as_bytes()))).collect();
    let _ = write!(
        text,
        "streamlab-receipt 1\nlesson {} {} {digest}\nattempt 730541287\nvariant 2\nprofile {}\nmode {}\nstarted 1764820512345\nsaved 1764821433210\nscore 24 24\nat {}\n",
        lesson.id,
        lesson.version,
        lesson.profile.name(),
        if quiz { "quiz" } else { "lesson" },
        lesson.tasks.len().saturating_sub(1)
    );
    let mut chain = 0;
    for (n, task) in lesson.tasks.iter().enumerate() {
        let answer = match &task.kind {
            TaskKind::ReachState(_) if quiz => continue,
            TaskKind::ReachState(goal) => {
                let _ = writeln!(text, "task {n} done 3 hints 0 solution 0 finished 17648{:08}", 20512345 + n * 61_234);
                chain = if task.continues { chain + 1 } else { 0 };
                for _ in 0..chain {
                    text.push_str("base ref\n");
                }
                text.push_str("log\n");
                for line in &goal.solution {
                    let _ = writeln!(text, "| {}", line.text);
                }
                continue;
            }
            TaskKind::Order(order) => {
                format!("order {}", (0..order.steps.len()).map(|s| s.to_string()).collect::<Vec<_>>().join(" "))
            }
            TaskKind::Numeric(_) => "typed \"42\"".to_owned(),
            TaskKind::Choice(c) if c.multiple => "options 1 3".to_owned(),
            _ => "option 2".to_owned(),
        };
        let _ = writeln!(
            text,
            "task {n} done 1 hints 0 solution 0 finished 17648{:08}\nanswer {answer}",
            20512345 + n * 61_234
        );
    }
    text.push_str("live 0\nlog\nend\n");
    let deflated = miniz_oxide::deflate::compress_to_vec_zlib(text.as_bytes(), 6);
    "SL1.".len() + (deflated.len() * 4).div_ceil(3)
}

/// The warning for a lesson whose receipt could outgrow the version's suspend_data: a
/// learner's receipt holds their own commands, so one at half the limit by its solutions is
/// taken to be at risk.
pub fn size_warning(p: &Package, lesson: &Lesson) -> Option<String> {
    let estimate = receipt_estimate(lesson, p.quiz);
    (estimate * 2 > p.version.suspend_limit()).then(|| {
        let limit = if p.version == Version::Scorm12 { "4,096" } else { "64,000" };
        let more = if p.version == Version::Scorm12 { " SCORM 2004 keeps 64,000." } else { "" };
        format!(
            "lesson \"{}\": its receipt is about {estimate} characters when played by its solutions, and a learner's own tries can double that, past the {limit} characters of suspend_data SCORM {} keeps. An attempt that outgrows it is still scored, but cannot be saved to resume later (the page says so).{more}",
            lesson.id,
            p.version.name()
        )
    })
}

/// A package: its files (name and size) in the order written, and the zip.
#[derive(Debug)]
pub struct Built {
    pub files: Vec<(String, usize)>,
    pub zip: Vec<u8>,
}

/// The package of `lessons`; the manifest is written first, as some LMSs read only the start
/// of a zip to find it.
pub fn build(p: &Package, lessons: &[LessonFile]) -> Result<Built, String> {
    let mut files: Vec<(String, Vec<u8>)> = vec![("imsmanifest.xml".into(), manifest(p, lessons).into_bytes())];
    for l in lessons {
        files.push((format!("{}.html", l.lesson.id), launch_page(p, &l.lesson).into_bytes()));
    }
    if let Form::SelfContained { site } = &p.form {
        for l in lessons {
            files.push((format!("lessons/{}.toml", l.lesson.id), l.text.clone().into_bytes()));
        }
        for name in PLAYER {
            files.push(((*name).to_owned(), site_file(site, name)?));
        }
    }
    let mut zip = Zip::default();
    for (name, bytes) in &files {
        zip.add(name, bytes)?;
    }
    Ok(Built { files: files.into_iter().map(|(name, bytes)| (name, bytes.len())).collect(), zip: zip.finish()? })
}

fn site_file(site: &Path, name: &str) -> Result<Vec<u8>, String> {
    let path = site.join(name);
    std::fs::read(&path).map_err(|error| {
        let why = if error.kind() == std::io::ErrorKind::NotFound { "missing".to_owned() } else { error.to_string() };
        format!(
            "{}: {why}; a self-contained package takes StreamLab's player from the built site (`cargo xtask dist` writes dist/; --site DIR names another)",
            path.display()
        )
    })
}

/// The options of `streamlab package scorm`, read.
#[derive(Debug, PartialEq)]
pub struct Args {
    pub package: Package,
    pub dir: String,
    pub ids: Vec<String>,
    pub out: String,
}

pub const USAGE: &str = "usage: streamlab package scorm --scorm 1.2|2004 [--form self|thin] -o FILE.zip ID...
         [--site DIR]     self-contained (the default): the built site with the player, default dist
         [--base URL]     thin: where StreamLab's dist/ is hosted
         [--lessons DIR] [--mode lesson|quiz] [--mastery 0.8] [--title TEXT]";

/// Reads the arguments after `package scorm`.
pub fn parse_args(args: &[String]) -> Result<Args, String> {
    let (mut version, mut form, mut site, mut base) = (None, "self".to_owned(), None, None);
    let (mut dir, mut mastery, mut quiz, mut title, mut out) = ("lessons".to_owned(), 0.8, false, None, None);
    let (options, ids) = package::options(args)?;
    for (arg, value) in options {
        match arg.as_str() {
            "--scorm" => {
                version = Some(match value.as_str() {
                    "1.2" => Version::Scorm12,
                    "2004" => Version::Scorm2004,
                    _ => return Err(format!("--scorm must be 1.2 or 2004 (4th edition), not \"{value}\"")),
                });
            }
            "--form" => {
                if !["self", "thin"].contains(&value.as_str()) {
                    return Err(format!("--form must be self or thin, not \"{value}\""));
                }
                form = value;
            }
            "--site" => site = Some(value),
            "--base" => base = Some(value),
            "--lessons" => dir = value,
            "--mastery" => mastery = package::mastery(&value)?,
            "--mode" => quiz = package::quiz_mode(&value)?,
            "--title" => title = Some(value),
            "-o" | "--out" => out = Some(value),
            _ => return Err(format!("unknown option {arg}")),
        }
    }
    let version = version.ok_or("--scorm 1.2 or --scorm 2004 is needed: the version your course platform imports")?;
    let form = match (form.as_str(), site, base) {
        ("self", _, Some(_)) => {
            return Err("--base is for --form thin; a self-contained package plays from inside the zip".into())
        }
        ("self", site, None) => Form::SelfContained { site: PathBuf::from(site.unwrap_or_else(|| "dist".into())) },
        (_, Some(_), _) => return Err("--site is for --form self; a thin package takes nothing from the site".into()),
        (_, None, None) => return Err("--form thin needs --base URL: where StreamLab's dist/ is hosted".into()),
        (_, None, Some(base)) => Form::Thin { base: package::base_url(&base)? },
    };
    let out = out.ok_or("-o FILE.zip is needed: where to write the package")?;
    if ids.is_empty() {
        return Err("name at least one lesson id".to_owned());
    }
    let title = title.unwrap_or_else(|| "StreamLab: Redis Streams".to_owned());
    Ok(Args { package: Package { version, form, title, mastery, quiz }, dir, ids, out })
}

#[cfg(test)]
#[path = "scorm_tests.rs"]
mod tests;
