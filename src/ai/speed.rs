//! How fast the model works on this machine, as Ollama reports it, and the deadline a
//! note's call gets from it.
//!
//! Every answer says how many tokens the model read and wrote and how long each took
//! (`prompt_eval_count`/`_duration`, `eval_count`/`_duration`). From those, a note
//! whose prompt will plainly take longer than `ollama.request_timeout_ms` on this
//! machine (a pasted article on a CPU) gets a longer deadline from its first call,
//! instead of being abandoned at the deadline once: an abandoned call is the model's
//! time thrown away. The deadline is never shorter than the planned one, never longer
//! than `ollama.max_request_timeout_ms`.

use std::time::Duration;

/// Tokens a second, reading the prompt and writing the answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelSpeed {
    pub prompt_tokens_per_second: f64,
    pub output_tokens_per_second: f64,
}

/// Below this many tokens a measurement says more about overheads than speed.
const MEASURABLE_TOKENS: u64 = 16;
/// How much a new measurement moves the estimate (a moving average: one odd call
/// does not swing it).
const WEIGHT: f64 = 0.3;
/// The deadline's margin over the expected time.
const MARGIN: f64 = 2.0;

impl ModelSpeed {
    /// The speed in one answer's counts and durations (nanoseconds, as Ollama gives
    /// them), if both parts were long enough to measure.
    pub fn measured(
        prompt_tokens: u64,
        prompt_ns: u64,
        output_tokens: u64,
        output_ns: u64,
    ) -> Option<Self> {
        let rate = |tokens: u64, ns: u64| {
            (tokens >= MEASURABLE_TOKENS && ns > 0).then(|| tokens as f64 / (ns as f64 / 1e9))
        };
        Some(ModelSpeed {
            prompt_tokens_per_second: rate(prompt_tokens, prompt_ns)?,
            output_tokens_per_second: rate(output_tokens, output_ns)?,
        })
    }

    /// The estimate after one more measurement.
    pub fn updated(previous: Option<Self>, measured: Self) -> Self {
        match previous {
            None => measured,
            Some(old) => ModelSpeed {
                prompt_tokens_per_second: old.prompt_tokens_per_second * (1.0 - WEIGHT)
                    + measured.prompt_tokens_per_second * WEIGHT,
                output_tokens_per_second: old.output_tokens_per_second * (1.0 - WEIGHT)
                    + measured.output_tokens_per_second * WEIGHT,
            },
        }
    }

    /// How long reading `prompt_tokens` and writing up to `output_tokens` takes.
    pub fn expected(&self, prompt_tokens: usize, output_tokens: u32) -> Duration {
        let seconds = prompt_tokens as f64 / self.prompt_tokens_per_second.max(0.01)
            + f64::from(output_tokens) / self.output_tokens_per_second.max(0.01);
        Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
    }
}

/// A call's deadline: the planned one, or twice the expected time when that is longer,
/// never past `longest`.
pub fn note_deadline(planned: Duration, longest: Duration, expected: Option<Duration>) -> Duration {
    let wanted = expected.map_or(planned, |e| planned.max(e.saturating_mul(MARGIN as u32)));
    wanted.min(longest.max(planned))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLOW_CPU: ModelSpeed = ModelSpeed {
        prompt_tokens_per_second: 25.0,
        output_tokens_per_second: 10.0,
    };

    #[test]
    fn the_speed_is_read_from_an_answers_counts_and_durations() {
        let speed = ModelSpeed::measured(250, 10_000_000_000, 40, 4_000_000_000);
        assert_eq!(speed, Some(SLOW_CPU));
        assert_eq!(
            ModelSpeed::measured(3, 1_000, 40, 4_000_000_000),
            None,
            "too few to measure"
        );
        let moved = ModelSpeed::updated(
            Some(SLOW_CPU),
            ModelSpeed {
                prompt_tokens_per_second: 125.0,
                output_tokens_per_second: 10.0,
            },
        );
        assert!((moved.prompt_tokens_per_second - 55.0).abs() < 1e-9);
    }

    #[test]
    fn a_note_that_will_take_longer_gets_a_longer_deadline_up_to_the_longest() {
        let (planned, longest) = (Duration::from_secs(120), Duration::from_secs(600));
        // An ordinary note: 14 s expected, the planned 120 s stands.
        let short = SLOW_CPU.expected(250, 40);
        assert_eq!(short, Duration::from_secs(14));
        assert_eq!(note_deadline(planned, longest, Some(short)), planned);
        // A pasted article: 7,000 tokens, 280 s + 51 s: twice that, capped at 10 min.
        let article = SLOW_CPU.expected(7_000, 512);
        assert_eq!(note_deadline(planned, longest, Some(article)), longest);
        let medium = SLOW_CPU.expected(2_000, 512);
        assert_eq!(
            note_deadline(planned, longest, Some(medium)).as_secs(),
            2 * (80 + 51)
        );
        // Speed not known yet: the planned deadline.
        assert_eq!(note_deadline(planned, longest, None), planned);
        // A slow note's doubled deadline is never cut back.
        assert_eq!(
            note_deadline(
                Duration::from_secs(480),
                Duration::from_secs(300),
                Some(short)
            )
            .as_secs(),
            480
        );
    }
}
