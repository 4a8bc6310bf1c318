//! Delta debugging (ddmin): shrinking a failing sequence of steps to a small one that still
//! fails, for the property tests' and the differential tester's failure reports.

/// Shrinks `steps`, which fail, by dropping chunks of them, halving the chunk size down to
/// single steps, until no single step can be dropped.
///
/// `fails` runs a candidate and returns the steps to keep when it still fails (the candidate,
/// or the part of it up to where it failed), `None` when it does not. An error from `fails`
/// ends the search at once and is returned, with `steps` holding the smallest failing sequence
/// found so far: a caller on a time budget stops this way and keeps that sequence.
pub fn ddmin<T: Clone, E>(
    steps: &mut Vec<T>,
    mut fails: impl FnMut(&[T]) -> Result<Option<Vec<T>>, E>,
) -> Result<(), E> {
    let mut chunks = 2usize;
    while steps.len() >= 2 {
        let size = steps.len().div_ceil(chunks);
        let mut reduced = false;
        let mut start = 0;
        while start < steps.len() {
            let end = (start + size).min(steps.len());
            let candidate: Vec<T> = steps[..start].iter().chain(&steps[end..]).cloned().collect();
            if let Some(kept) = fails(&candidate)? {
                *steps = kept;
                reduced = true;
                // Same position now holds the next chunk.
            } else {
                start = end;
            }
        }
        if reduced {
            chunks = chunks.saturating_sub(1).max(2);
        } else if size <= 1 {
            break;
        } else {
            chunks = (chunks * 2).min(steps.len());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ddmin;
    use std::convert::Infallible;

    #[test]
    fn shrinks_to_the_steps_that_matter() {
        let mut steps: Vec<u32> = (0..50).collect();
        let mut runs = 0;
        let fails = |c: &[u32]| {
            runs += 1;
            Ok::<_, Infallible>((c.contains(&3) && c.contains(&41)).then(|| c.to_vec()))
        };
        let Ok(()) = ddmin(&mut steps, fails);
        assert_eq!(steps, [3, 41]);
        assert!(runs < 100, "{runs} runs");
    }

    #[test]
    fn keeps_what_the_check_keeps() {
        // A failure at the first 7 cuts what follows it.
        let mut steps = vec![1, 7, 2, 7, 3, 9];
        let Ok(()) = ddmin(&mut steps, |c: &[i32]| {
            Ok::<_, Infallible>(c.iter().position(|&s| s == 7).map(|at| c[..=at].to_vec()))
        });
        assert_eq!(steps, [7]);
    }

    #[test]
    fn an_error_stops_with_the_best_so_far() {
        let mut steps: Vec<u32> = (0..16).collect();
        let mut budget = 3;
        let outcome = ddmin(&mut steps, |c: &[u32]| {
            budget -= 1;
            if budget == 0 {
                return Err("out of time");
            }
            Ok(c.contains(&0).then(|| c.to_vec()))
        });
        assert_eq!(outcome, Err("out of time"));
        // Without the first half it passed, without the second it failed; then time ran out.
        assert_eq!(steps, (0..8).collect::<Vec<_>>());
    }
}
