//! Shrinking a differing sequence to a small one that still differs (delta debugging).
//!
//! 1. cut everything after the first difference;
//! 2. drop chunks of steps, halving the chunk size down to single steps (testkit's ddmin);
//! 3. move every step to the first connection where that keeps the difference;
//! 4. simplify arguments: drop one argument, shorten long values, replace numbers by 0 or 1;
//! 5. drop chunks and single steps once more, which the simpler steps may allow.
//!
//! Each candidate is run from a reset on both targets; "still differs" means any difference
//! at all. The work stops when the time budget runs out, keeping the best sequence so far.

use std::time::Instant;

use streamlab_testkit::shrink::ddmin;

use crate::gen::Call;
use crate::run::run;
use crate::target::Target;

struct Shrinker<'a> {
    reference: &'a mut dyn Target,
    target: &'a mut dyn Target,
    conns: usize,
    deadline: Instant,
    runs: usize,
}

impl Shrinker<'_> {
    fn out_of_time(&self) -> bool {
        Instant::now() > self.deadline
    }

    /// Whether `steps` still differ; on success returns the steps up to the difference.
    fn fails(&mut self, steps: &[Call]) -> Result<Option<Vec<Call>>, String> {
        self.runs += 1;
        let outcome = run(self.reference, self.target, steps, self.conns)?;
        Ok(outcome.difference.map(|_| outcome.executed.into_iter().map(|o| o.step).collect()))
    }

    /// [`ddmin`] under the time budget: running out of time ends it with the best so far.
    fn drop_steps(&mut self, mut steps: Vec<Call>) -> Result<Vec<Call>, String> {
        let mut error = None;
        // `Err(())` stops the search; only a target's error is the shrink's.
        let _ = ddmin(&mut steps, |candidate| {
            if self.out_of_time() {
                return Err(());
            }
            self.fails(candidate).map_err(|e| error = Some(e))
        });
        error.map_or(Ok(steps), Err)
    }

    fn simplify_connections(&mut self, mut steps: Vec<Call>) -> Result<Vec<Call>, String> {
        if steps.iter().all(|s| s.conn == 0) {
            return Ok(steps);
        }
        let all_first: Vec<Call> = steps.iter().map(|s| Call { conn: 0, args: s.args.clone() }).collect();
        if let Some(kept) = self.fails(&all_first)? {
            return Ok(kept);
        }
        let mut i = 0;
        while i < steps.len() && !self.out_of_time() {
            if steps[i].conn != 0 {
                let mut candidate = steps.clone();
                candidate[i].conn = 0;
                if let Some(kept) = self.fails(&candidate)? {
                    steps = kept;
                }
            }
            i += 1;
        }
        Ok(steps)
    }

    fn simplify_arguments(&mut self, mut steps: Vec<Call>) -> Result<Vec<Call>, String> {
        let mut i = 0;
        while i < steps.len() && !self.out_of_time() {
            let mut j = steps[i].args.len();
            while j > 1 && !self.out_of_time() {
                j -= 1;
                if j >= steps.get(i).map_or(0, |s| s.args.len()) {
                    continue;
                }
                // Drop the argument.
                let mut candidate = steps.clone();
                candidate[i].args.remove(j);
                if let Some(kept) = self.fails(&candidate)? {
                    steps = kept;
                    continue;
                }
                // Or make it simpler.
                for simpler in simpler_values(&steps[i].args[j]) {
                    let mut candidate = steps.clone();
                    candidate[i].args[j] = simpler;
                    if let Some(kept) = self.fails(&candidate)? {
                        steps = kept;
                        break;
                    }
                }
            }
            i += 1;
        }
        Ok(steps)
    }
}

/// Simpler forms of an argument, simplest first.
fn simpler_values(arg: &[u8]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    if arg.len() > 8 {
        out.push(b"v".to_vec());
        out.push(arg[..arg.len() / 2].to_vec());
    }
    if !arg.is_empty() && arg.iter().all(u8::is_ascii_digit) && arg != b"0" && arg != b"1" {
        out.push(b"0".to_vec());
        out.push(b"1".to_vec());
    }
    out
}

/// Shrinks `steps`, which differ, to a small sequence that still differs. Returns it with
/// the number of runs it took.
pub fn shrink(
    reference: &mut dyn Target,
    target: &mut dyn Target,
    steps: &[Call],
    conns: usize,
    deadline: Instant,
) -> Result<(Vec<Call>, usize), String> {
    let mut s = Shrinker { reference, target, conns, deadline, runs: 0 };
    let Some(mut steps) = s.fails(steps)? else {
        return Err("the difference did not happen again on a second run (timing-dependent?)".into());
    };
    steps = s.drop_steps(steps)?;
    steps = s.simplify_connections(steps)?;
    steps = s.simplify_arguments(steps)?;
    steps = s.drop_steps(steps)?;
    Ok((steps, s.runs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simpler_values_shrink() {
        assert_eq!(simpler_values(b"12"), vec![b"0".to_vec(), b"1".to_vec()]);
        assert!(simpler_values(b"0").is_empty());
        assert_eq!(simpler_values(b"abcdefghij")[0], b"v".to_vec());
    }
}
