//! Running one sequence on two targets side by side and finding the first difference.

use streamlab_protocol::{format_reply, Reply};

use crate::gen::Call;
use crate::normalize::normalize;
use crate::target::{Observation, Target};

/// One step as both targets saw it.
#[derive(Debug, Clone)]
pub struct Observed {
    /// Position of the step in the sequence.
    pub index: usize,
    /// The step.
    pub step: Call,
    /// What the reference (Redis) sent, raw.
    pub reference: Observation,
    /// The same, normalised.
    pub reference_norm: Observation,
    /// What the target sent, raw.
    pub target: Observation,
    /// The same, normalised.
    pub target_norm: Observation,
}

/// The outcome of one run.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// The steps that ran (steps for a blocked connection are skipped: a client would not send
    /// them either), up to and including the first difference.
    pub executed: Vec<Observed>,
    /// Why the last executed step differs, if it does.
    pub difference: Option<String>,
}

impl Run {
    /// How many commands were sent to each target.
    pub fn commands(&self) -> usize {
        self.executed.len()
    }
}

/// What the runner remembers per connection to normalise replies: the commands an open
/// MULTI queued, and the read a blocked connection waits on.
#[derive(Debug, Clone, Default)]
struct ConnContext {
    queue: Option<Vec<Vec<Vec<u8>>>>,
    blocked_on: Option<Vec<Vec<u8>>>,
}

fn lower(arg: &[u8]) -> Vec<u8> {
    arg.to_ascii_lowercase()
}

fn normalize_observation(seen: &Observation, step: &Call, contexts: &[ConnContext]) -> Observation {
    seen.iter()
        .map(|(conn, reply)| {
            let norm = if *conn == step.conn {
                let queued = contexts[*conn].queue.as_deref().unwrap_or(&[]);
                normalize(reply, &step.args, queued)
            } else {
                match &contexts[*conn].blocked_on {
                    Some(args) => normalize(reply, args, &[]),
                    None => normalize(reply, &[], &[]),
                }
            };
            (*conn, norm)
        })
        .collect()
}

fn update_contexts(seen: &Observation, step: &Call, contexts: &mut [ConnContext]) {
    let ctx = &mut contexts[step.conn];
    let name = lower(&step.args[0]);
    match seen.iter().find(|(c, _)| *c == step.conn).map(|(_, r)| r) {
        None => ctx.blocked_on = Some(step.args.clone()),
        Some(reply) => match &mut ctx.queue {
            Some(queue) => match name.as_slice() {
                b"exec" => ctx.queue = None,
                b"discard" if *reply == Reply::ok() => ctx.queue = None,
                b"discard" | b"multi" | b"watch" => {}
                _ if *reply == Reply::Status("QUEUED".into()) => queue.push(step.args.clone()),
                _ => {}
            },
            None if name == b"multi" && *reply == Reply::ok() => ctx.queue = Some(Vec::new()),
            None => {}
        },
    }
    for (c, _) in seen {
        if *c != step.conn {
            contexts[*c].blocked_on = None;
        }
    }
}

/// Describes an observation for a report.
pub fn show(seen: &Observation, names: &[&str]) -> String {
    if seen.is_empty() {
        return "    (nothing: blocked)\n".into();
    }
    let mut out = String::new();
    for (conn, reply) in seen {
        for line in format_reply(reply).lines() {
            out.push_str(&format!("    [{}] {line}\n", names.get(*conn).unwrap_or(&"?")));
        }
    }
    out
}

/// Runs `steps` from a reset on both targets, stopping at the first difference.
pub fn run(reference: &mut dyn Target, target: &mut dyn Target, steps: &[Call], conns: usize) -> Result<Run, String> {
    reference.reset(conns)?;
    target.reset(conns)?;
    let mut contexts = vec![ConnContext::default(); conns];
    let mut out = Run::default();
    for (index, step) in steps.iter().enumerate() {
        if reference.is_blocked(step.conn) {
            continue;
        }
        let a = reference.step(step.conn, &step.args).map_err(|e| format!("{}: {e}", reference.describe()))?;
        let b = target.step(step.conn, &step.args).map_err(|e| format!("{}: {e}", target.describe()))?;
        let a_norm = normalize_observation(&a, step, &contexts);
        let b_norm = normalize_observation(&b, step, &contexts);
        update_contexts(&a, step, &mut contexts);
        let differs = a_norm != b_norm;
        out.executed.push(Observed {
            index,
            step: step.clone(),
            reference: a,
            reference_norm: a_norm,
            target: b,
            target_norm: b_norm,
        });
        if differs {
            out.difference = Some("the replies differ".into());
            break;
        }
        if let Err(broken) = target.check() {
            out.difference = Some(format!("{}: invariant broken: {broken}", target.describe()));
            break;
        }
    }
    Ok(out)
}
