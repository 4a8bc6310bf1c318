use super::*;
use crate::package::read_lessons;

fn args(list: &[&str]) -> Result<Args, String> {
    parse_args(&list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lessons")
}

fn lessons(ids: &[&str]) -> Vec<LessonFile> {
    let (found, problems) = read_lessons(&repository(), &ids.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
    assert!(problems.is_empty(), "{problems:?}");
    found
}

/// Python's ElementTree reads the manifest (well-formed XML) and answers what SCORM requires
/// of it: the schema version, the default organization, each item's resource and its type,
/// the mastery score or objective, and whether every file it lists is in `names`.
fn checked(xml: &str, names: &[&str]) -> String {
    let script = r#"
import sys, json, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.read())
ns = root.tag[1:].split('}')[0]
q = lambda t: '{%s}%s' % (ns, t)

orgs = root.find(q('organizations'))
org = [o for o in orgs.findall(q('organization')) if o.get('identifier') == orgs.get('default')][0]
res = {r.get('identifier'): r for r in root.find(q('resources')).findall(q('resource'))}
items = []
for item in org.findall(q('item')):
    r = res[item.get('identifierref')]
    kind = [v for k, v in r.attrib.items() if k.endswith('}scormtype') or k.endswith('}scormType')][0]
    extra = [e.text for e in item.iter() if e.tag.endswith('}masteryscore') or e.tag.endswith('}minNormalizedMeasure')]
    items.append([item.find(q('title')).text, r.get('href'), kind, extra])
files = sorted({f.get('href') for r in res.values() for f in r.findall(q('file'))})
names = set(json.loads(sys.argv[1]))
print(json.dumps({'schema': root.find(q('metadata')).find(q('schemaversion')).text, 'ns': ns, 'items': items,
    'missing': [f for f in files if f not in names], 'unlisted': sorted(names - set(files) - {'imsmanifest.xml'})}))
"#;
    let mut child = std::process::Command::new("python3")
        .args(["-c", script, &format!("{names:?}")])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), xml.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}\n{xml}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A site with each player file, its name as its content.
fn site() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("streamlab-scorm-site-{}", std::process::id()));
    for name in PLAYER {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, name).unwrap();
    }
    dir
}

/// The zip's names, read back by Python's zipfile (which checks every CRC).
fn names_in(zip: &[u8]) -> Vec<String> {
    let file = std::env::temp_dir().join(format!("streamlab-scorm-{}-{}.zip", std::process::id(), crc32(zip)));
    std::fs::write(&file, zip).unwrap();
    let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint('\\n'.join(z.namelist()))";
    let out = std::process::Command::new("python3").args(["-c", script]).arg(&file).output().unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect()
}

#[test]
fn a_self_contained_scorm_12_package() {
    let site = site();
    let a = args(&[
        "--scorm",
        "1.2",
        "--site",
        site.to_str().unwrap(),
        "--mastery",
        "0.75",
        "-o",
        "x.zip",
        "streams-and-ids",
        "ack-is-not-delete",
    ])
    .unwrap();
    let found = lessons(&["streams-and-ids", "ack-is-not-delete"]);
    let Built { files, zip } = build(&a.package, &found).unwrap();
    let names = names_in(&zip);
    assert_eq!(names, files.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>());
    assert_eq!(names[..3], ["imsmanifest.xml", "streams-and-ids.html", "ack-is-not-delete.html"]);
    let xml = manifest(&a.package, &found);
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_eq!(
        checked(&xml, &refs),
        format!(
            r#"{{"schema": "1.2", "ns": "http://www.imsproject.org/xsd/imscp_rootv1p1p2", "items": [["{}", "streams-and-ids.html", "sco", ["75"]], ["{}", "ack-is-not-delete.html", "sco", ["75"]]], "missing": [], "unlisted": []}}"#,
            found[0].lesson.title, found[1].lesson.title
        )
    );
    assert!(xml.contains(r#"<manifest identifier="streamlab.lesson.streams-and-ids.ack-is-not-delete" version="1""#));
    let page = launch_page(&a.package, &found[0].lesson);
    assert!(page.contains(
        r#"<meta name="streamlab-sco" content="scorm=1.2&lesson=streams-and-ids&mode=lesson&mastery=0.75">"#
    ));
    assert!(page.contains(r#"<script src="embed.js"></script>"#));
    assert!(page.contains("script-src 'self' 'wasm-unsafe-eval';"));
    let _ = std::fs::remove_dir_all(site);
}

#[test]
fn a_thin_scorm_2004_quiz_package() {
    let a = args(&[
        "--scorm",
        "2004",
        "--form",
        "thin",
        "--base",
        "https://lab.example:8443/sl",
        "--mode",
        "quiz",
        "--title",
        "Q & A",
        "-o",
        "q.zip",
        "streams-and-ids",
    ])
    .unwrap();
    assert_eq!(a.package.form, Form::Thin { base: "https://lab.example:8443/sl/".into() });
    let found = lessons(&["streams-and-ids"]);
    let Built { files, zip } = build(&a.package, &found).unwrap();
    assert_eq!(files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["imsmanifest.xml", "streams-and-ids.html"]);
    let xml = manifest(&a.package, &found);
    assert_eq!(
        checked(&xml, &["imsmanifest.xml", "streams-and-ids.html"]),
        format!(
            r#"{{"schema": "2004 4th Edition", "ns": "http://www.imsglobal.org/xsd/imscp_v1p1", "items": [["{} (questions)", "streams-and-ids.html", "sco", ["0.8"]]], "missing": [], "unlisted": []}}"#,
            found[0].lesson.title
        )
    );
    assert!(xml.contains("<title>Q &amp; A</title>"));
    assert!(xml.contains(r#"<imsss:primaryObjective objectiveID="mastery" satisfiedByMeasure="true">"#));
    assert!(xml.contains(r#"<imsss:controlMode choice="true" flow="true"/>"#));
    let page = launch_page(&a.package, &found[0].lesson);
    assert!(page.contains(r#"<script src="https://lab.example:8443/sl/embed.js"></script>"#));
    assert!(page.contains(r#"<script src="https://lab.example:8443/sl/scorm.js" defer></script>"#));
    assert!(page.contains("script-src https://lab.example:8443; style-src 'self' 'unsafe-inline' https://lab.example:8443; frame-src https://lab.example:8443;"));
    assert!(page.contains("mode=quiz"));
    assert!(names_in(&zip).len() == 2);
}

#[test]
fn a_site_without_the_player_is_named() {
    let dir = std::env::temp_dir().join(format!("streamlab-scorm-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = args(&["--scorm", "1.2", "--site", dir.to_str().unwrap(), "-o", "x.zip", "streams-and-ids"]).unwrap();
    let error = build(&a.package, &lessons(&["streams-and-ids"])).unwrap_err();
    assert!(
        error.contains("embed.js: missing; a self-contained package takes StreamLab's player from the built site"),
        "{error}"
    );
    let _ = std::fs::remove_dir(dir);
}

#[test]
fn wrong_arguments_are_named() {
    let err = |a: &[&str]| args(a).unwrap_err();
    assert!(err(&["-o", "x.zip", "a"]).starts_with("--scorm 1.2 or --scorm 2004 is needed"));
    assert_eq!(err(&["--scorm", "3", "a"]), "--scorm must be 1.2 or 2004 (4th edition), not \"3\"");
    assert_eq!(err(&["--scorm", "1.2", "--form", "fat", "a"]), "--form must be self or thin, not \"fat\"");
    assert!(err(&["--scorm", "1.2", "--form", "thin", "-o", "x.zip", "a"]).starts_with("--form thin needs --base URL"));
    assert!(
        err(&["--scorm", "1.2", "--base", "https://l/", "-o", "x.zip", "a"]).starts_with("--base is for --form thin")
    );
    assert!(err(&["--scorm", "1.2", "--form", "thin", "--base", "https://l/", "--site", "d", "a"])
        .starts_with("--site is for --form self"));
    assert!(err(&["--scorm", "1.2", "--form", "thin", "--base", "ftp://l/", "-o", "x", "a"])
        .starts_with("--base must be an http(s) URL"));
    assert_eq!(err(&["--scorm", "1.2", "--mastery", "-1", "a"]), "--mastery must be a number from 0 to 1, not \"-1\"");
    assert_eq!(err(&["--scorm", "1.2", "a"]), "-o FILE.zip is needed: where to write the package");
    assert_eq!(err(&["--scorm", "1.2", "-o", "x.zip"]), "name at least one lesson id");
    assert_eq!(err(&["--scorm", "1.2", "--mode", "exam", "a"]), "--mode must be lesson or quiz, not \"exam\"");
    assert_eq!(err(&["--scorm"]), "--scorm needs a value");
    assert_eq!(err(&["--scorm", "1.2", "--zip", "x", "a"]), "unknown option --zip");
}

/// Every repository lesson has an estimate in the range receipts have (README: typically 1
/// to 2 KB), and a quiz's is smaller than its lesson's (no logs).
#[test]
fn receipt_estimates() {
    let ids: Vec<String> = std::fs::read_dir(repository())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".toml").map(String::from))
        .filter(|id| id != "index")
        .collect();
    let (found, problems) = read_lessons(&repository(), &ids);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(found.len() > 20);
    let package = |version| Package {
        version,
        form: Form::Thin { base: "https://l/".into() },
        title: String::new(),
        mastery: 0.8,
        quiz: false,
    };
    let mut warned = 0;
    for l in &found {
        let (whole, quiz) = (receipt_estimate(&l.lesson, false), receipt_estimate(&l.lesson, true));
        assert!((300..8000).contains(&whole), "{}: {whole}", l.lesson.id);
        assert!(quiz <= whole, "{}: {quiz} > {whole}", l.lesson.id);
        assert_eq!(size_warning(&package(Version::Scorm2004), &l.lesson), None);
        if let Some(warning) = size_warning(&package(Version::Scorm12), &l.lesson) {
            assert!(warning.contains("past the 4,096 characters of suspend_data SCORM 1.2 keeps"), "{warning}");
            warned += 1;
        }
    }
    assert_eq!(warned, 0, "no repository lesson nears SCORM 1.2's limit by its solutions");
    // A lesson of many long solution lines does (within the 50 tasks a lesson may have).
    let mut long = found[0].text.clone();
    // Values that do not compress, as the receipt is sealed compressed.
    let mut rng = streamlab_testkit::rng::Rng::new(229);
    for n in 0..40 {
        let value: String = (0..4).map(|_| format!("{:016x}", rng.below(u64::MAX))).collect();
        long.push_str(&format!("\n[[task]]\nkind = \"reach-state\"\ntitle = \"T{n}\"\nprompt = \"P\"\nsolution = [\"XADD jobs-{n} * field-{n} {value}\"]\n  [[task.check]]\n  kind = \"length\"\n  stream = \"jobs-{n}\"\n  equals = 1\n  message = \"{{actual}}\"\n"));
    }
    let long = streamlab_lessons::parse_lesson("long.toml", &long).unwrap_or_else(|e| panic!("{e:?}"));
    let warning = size_warning(&package(Version::Scorm12), &long).unwrap();
    assert!(warning.starts_with(&format!("lesson \"{}\": its receipt is about ", found[0].lesson.id)), "{warning}");
    assert!(warning.ends_with("(the page says so). SCORM 2004 keeps 64,000."), "{warning}");
}
