//! The AI from the command line: `retry-failed`, `failed-count`, `recheck` (the
//! provider checked now) and `pull-model` (the model downloaded, its progress shown).

use super::render::{describe_health, describe_pull_step};
use super::Invocation;
use crate::api::pull::PullState;
use crate::api::status::ProviderHealth;
use crate::client::ClientError;

/// `inkling retry-failed`: prints how many went back to the AI.
pub async fn retry_failed(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let retried = run.client.retry_all().await?;
    if run.json {
        run.out.json(&retried)
    } else {
        run.out.line(retried.count)
    }
}

/// `inkling failed-count`: the number alone, `--json` or not.
pub async fn failed_count(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let count = run.client.failed_count().await?;
    run.out.line(count)
}

/// `inkling recheck`.
pub async fn recheck(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let health = run.client.recheck().await?;
    if run.json {
        run.out.json(&health)
    } else {
        run.out
            .line(format!("ollama: {}", describe_health(Some(&health))))
    }
}

/// `inkling pull-model`: each step of the download as it comes, as a progress line
/// rewritten in place on a terminal (otherwise a line per step and per tenth of a
/// download, or the JSON lines with `--json`). Fails with Ollama's reason when the
/// download does.
pub async fn pull_model(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    use std::io::IsTerminal;
    // Nothing to download from: say so plainly, with the fix.
    let status = run.client.status().await?;
    if let Some(ProviderHealth::NotRunning { detail }) = &status.provider {
        return Err(ClientError::Api(format!(
            "Ollama is not running ({detail}); start it (the Ollama app, or `ollama serve`), then run `inkling pull-model` again"
        )));
    }
    let json = run.json;
    let terminal = std::io::stdout().is_terminal() && !json;
    let out = &mut run.out;
    let mut last_line = (String::new(), None::<u64>);
    let mut outcome: Option<PullState> = None;
    run.client
        .pull_model(|line, step| {
            if json {
                out.line(line)?;
            }
            match &step.state {
                PullState::Running {
                    status,
                    completed,
                    total,
                } if !json => {
                    let text = describe_pull_step(status, *completed, *total);
                    let tenth = completed
                        .zip(*total)
                        .filter(|(_, total)| *total > 0)
                        .map(|(done, total)| done.saturating_mul(10) / total);
                    if terminal {
                        out.text(format!("\r\x1b[2K{text}"))?;
                    } else if (status.clone(), tenth) != last_line {
                        out.line(text)?;
                    }
                    last_line = (status.clone(), tenth);
                }
                PullState::Running { .. } => {}
                over => outcome = Some(over.clone()),
            }
            Ok(())
        })
        .await?;
    if terminal {
        run.out.line("")?;
    }
    match outcome {
        Some(PullState::Done) => {
            if !json {
                run.out
                    .line("the model is installed; the AI work starts now")?;
            }
            Ok(())
        }
        Some(PullState::Failed { error }) => Err(ClientError::Api(format!(
            "the download failed: {error}. Check that Ollama runs and the model name (ollama.model) is right"
        ))),
        _ => Err(ClientError::Api("the download ended without a result".into())),
    }
}
