//! The fake Ollama's simulated model (`FakeOllama::simulate`): a model as a slow desktop
//! runs it, on (virtual) time, with one generation slot, loads and `keep_alive`, prompts
//! cut from the front, and a log of what it did for the day's benchmark.

use std::sync::{Arc, Mutex};

use tokio::net::TcpStream;
use tokio::time::Instant;

use super::fake_answers::{answer_chat, Wire};
use super::{chat_answer, installed, model_not_found, FakeOllama, Held, Reply, State};
use crate::fake_http::{respond, until_hung_up, JSON};

/// A model as a slow desktop runs it, simulated on (virtual) time (`simulate`): one
/// generation at a time, a cold load per (model, `num_ctx`), unloaded after its
/// `keep_alive`, prompt and generation speeds, a prompt longer than the context cut
/// silently from its front (as Ollama does), the same answer to the same request, a
/// client that hangs up aborting the generation, and the model missing until pulled.
///
/// What the model answers depends on the note it sees: "[prose]" wraps the JSON in a
/// sentence, "[cut]" runs past a 512-token cap (cut off, `done_reason: "length"`),
/// "[wrong]" gives the tags as a string unless the request says what was wrong, a
/// one-word note gets an empty title. The title is the first words the model saw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimulatedModel {
    pub prompt_tokens_per_second: f64,
    pub output_tokens_per_second: f64,
    pub load_seconds: f64,
    /// The context when a request names none (Ollama's default).
    pub default_num_ctx: u32,
}

impl SimulatedModel {
    /// The slow desktop CPU of the issue's measurements.
    pub fn slow_cpu() -> Self {
        SimulatedModel {
            prompt_tokens_per_second: 25.0,
            output_tokens_per_second: 10.0,
            load_seconds: 15.0,
            default_num_ctx: 4096,
        }
    }
}

/// What the simulated model did, for the day's benchmark.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SimulationLog {
    /// Seconds the model spent loading, and reading and writing (answered or not).
    pub load_seconds: f64,
    pub work_seconds: f64,
    /// Generations abandoned because the client hung up.
    pub aborted: usize,
    /// Prompts cut from the front because they did not fit the context.
    pub truncated: usize,
    pub loads: usize,
    /// When each load ended, on the runtime's clock.
    pub loads_ended: Vec<Instant>,
    /// Every generation: the note it was about (its first 40 characters), how long the
    /// model worked on it, and whether it answered (rather than being hung up on).
    pub calls: Vec<SimulatedCall>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedCall {
    pub note: String,
    pub seconds: f64,
    pub answered: bool,
    /// When the generation ended (answered or hung up on), on the runtime's clock.
    pub ended: Instant,
}

pub(super) struct Simulation {
    model: SimulatedModel,
    /// The model loaded: its name, context, and until when it stays (`None`: for ever).
    pub(super) loaded: Option<(String, u32, Option<Instant>)>,
    /// One generation at a time.
    slot: Arc<tokio::sync::Semaphore>,
    log: SimulationLog,
}

impl FakeOllama {
    /// Answers every call as `model` would (the default reply becomes `Simulated`).
    pub fn simulate(&self, model: SimulatedModel) {
        let mut state = self.state.lock().unwrap();
        state.default = Reply::Simulated;
        state.simulation = Some(Simulation {
            model,
            loaded: None,
            slot: Arc::new(tokio::sync::Semaphore::new(1)),
            log: SimulationLog::default(),
        });
    }

    pub fn simulation_log(&self) -> SimulationLog {
        let state = self.state.lock().unwrap();
        state
            .simulation
            .as_ref()
            .map(|s| s.log.clone())
            .unwrap_or_default()
    }
}

/// Tokens the simulated tokenizer counts: four characters a token.
fn sim_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// Ollama's `keep_alive` ("30m", "90s", "-1", default 5 minutes); `None`: for ever.
fn keep_alive_of(request: &serde_json::Value) -> Option<std::time::Duration> {
    let text = request["keep_alive"].as_str().unwrap_or("5m");
    if text.starts_with('-') {
        return None;
    }
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: u64 = number.parse().unwrap_or(5);
    Some(std::time::Duration::from_secs(match unit {
        "h" => n * 3600,
        "m" => n * 60,
        _ => n,
    }))
}

/// Runs `work` counted as held: only virtual time moving (or another call ending) can
/// finish it.
async fn held<F: std::future::Future>(state: &Arc<Mutex<State>>, work: F) -> F::Output {
    state.lock().unwrap().held += 1;
    let _held = Held(state.clone());
    work.await
}

/// Takes the one generation slot and loads the model for (`model`, `num_ctx`) if it is
/// not loaded: the time that takes. `None` without a simulation.
async fn simulated_slot(
    state: &Arc<Mutex<State>>,
    model: &str,
    num_ctx: u32,
) -> Option<tokio::sync::OwnedSemaphorePermit> {
    let slot = state.lock().unwrap().simulation.as_ref()?.slot.clone();
    let permit = held(state, slot.acquire_owned()).await.ok()?;
    let load = {
        let mut state = state.lock().unwrap();
        let simulation = state.simulation.as_mut()?;
        let warm = simulation
            .loaded
            .as_ref()
            .is_some_and(|(name, ctx, until)| {
                name == model && *ctx == num_ctx && until.is_none_or(|u| u > Instant::now())
            });
        if warm {
            0.0
        } else {
            simulation.log.loads += 1;
            simulation.log.load_seconds += simulation.model.load_seconds;
            simulation.log.loads_ended.push(
                Instant::now() + std::time::Duration::from_secs_f64(simulation.model.load_seconds),
            );
            simulation.model.load_seconds
        }
    };
    if load > 0.0 {
        held(
            state,
            tokio::time::sleep(std::time::Duration::from_secs_f64(load)),
        )
        .await;
    }
    Some(permit)
}

/// Keeps the model loaded for the request's `keep_alive` from now.
fn simulated_keep(
    state: &Arc<Mutex<State>>,
    model: &str,
    num_ctx: u32,
    request: &serde_json::Value,
) {
    let mut state = state.lock().unwrap();
    if let Some(simulation) = state.simulation.as_mut() {
        let until = keep_alive_of(request).map(|keep| Instant::now() + keep);
        simulation.loaded = Some((model.to_string(), num_ctx, until));
    }
}

/// A request to the simulated model: its model (answered 404 here when it is not
/// installed), the model's speeds, and the context it asks for.
async fn simulated_request(
    stream: &mut TcpStream,
    state: &Arc<Mutex<State>>,
    request: &serde_json::Value,
) -> Option<(String, SimulatedModel, u32)> {
    let model = request["model"].as_str().unwrap_or("").to_string();
    if !installed(state, &model) {
        model_not_found(stream, &model).await;
        return None;
    }
    let speed = state.lock().unwrap().simulation.as_ref()?.model;
    let num_ctx = request["options"]["num_ctx"]
        .as_u64()
        .map_or(speed.default_num_ctx, |n| n as u32);
    Some((model, speed, num_ctx))
}

/// One `/api/chat` call to the simulated model.
pub(super) async fn simulated_chat(
    stream: &mut TcpStream,
    state: &Arc<Mutex<State>>,
    request: &serde_json::Value,
) {
    let Some((model, speed, num_ctx)) = simulated_request(stream, state, request).await else {
        return;
    };
    let num_predict = request["options"]["num_predict"].as_u64().unwrap_or(128);
    let Some(_slot) = simulated_slot(state, &model, num_ctx).await else {
        return;
    };

    // The prompt as the model sees it: cut from the front past the context.
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let texts: Vec<String> = messages
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect();
    let prompt_tokens: u64 = texts.iter().map(|t| sim_tokens(t) + 8).sum();
    let note = texts.get(1).cloned().unwrap_or_default();
    let room = u64::from(num_ctx).saturating_sub(num_predict.min(u64::from(num_ctx) / 2));
    let (seen, evaluated) = if prompt_tokens > room {
        if let Some(simulation) = state.lock().unwrap().simulation.as_mut() {
            simulation.log.truncated += 1;
        }
        // The front goes: the system prompt first, then the note's beginning.
        let cut_chars = ((prompt_tokens - room) * 4) as usize;
        let before_note = texts.first().map_or(0, |t| t.chars().count() + 32);
        let from = cut_chars.saturating_sub(before_note);
        (note.chars().skip(from).collect::<String>(), room)
    } else {
        (note.clone(), prompt_tokens)
    };

    // Its answer: the same for the same request.
    let retry = messages.len() > 2;
    let words: Vec<&str> = seen
        .split_whitespace()
        .filter(|w| !w.starts_with('['))
        .collect();
    let title = if words.len() <= 1 {
        String::new()
    } else {
        words.iter().take(6).copied().collect::<Vec<_>>().join(" ")
    };
    let good = serde_json::json!({
        "title": if title.is_empty() { String::new() } else { format!("About: {title}") },
        "tags": ["fake"],
        "summary": if words.len() <= 1 { String::new() } else { format!("A note about {}.", words.iter().take(12).copied().collect::<Vec<_>>().join(" ")) },
    })
    .to_string();
    let (content, done_reason, output_tokens) = if seen.contains("[cut]") && num_predict <= 512 {
        let long = format!(
            r#"{{"title":"{}","tags":["a"],"summary":"{}"#,
            title,
            "and so on ".repeat(300)
        );
        let cut: String = long.chars().take((num_predict * 4) as usize).collect();
        (cut, "length", num_predict)
    } else if seen.contains("[wrong]") && !retry {
        let wrong = format!(r#"{{"title":"{title}","tags":"fake","summary":"S"}}"#);
        let tokens = sim_tokens(&wrong);
        (wrong, "stop", tokens)
    } else if seen.contains("[prose]") {
        let prose =
            format!("Sure! Here is the JSON you asked for: {good} Let me know if you need more.");
        let tokens = sim_tokens(&prose);
        (prose, "stop", tokens)
    } else {
        let tokens = sim_tokens(&good);
        (good, "stop", tokens)
    };
    let seconds = evaluated as f64 / speed.prompt_tokens_per_second
        + output_tokens as f64 / speed.output_tokens_per_second;
    let began = Instant::now();
    let finished = held(state, async {
        tokio::select! {
            _ = tokio::time::sleep(std::time::Duration::from_secs_f64(seconds)) => true,
            _ = until_hung_up(stream) => false,
        }
    })
    .await;
    simulated_keep(state, &model, num_ctx, request);
    {
        let mut state = state.lock().unwrap();
        if let Some(simulation) = state.simulation.as_mut() {
            let worked = began.elapsed().as_secs_f64();
            simulation.log.work_seconds += worked;
            simulation.log.calls.push(SimulatedCall {
                note: note.chars().take(40).collect(),
                seconds: worked,
                answered: finished,
                ended: Instant::now(),
            });
            if !finished {
                simulation.log.aborted += 1;
            }
        }
    }
    if !finished {
        return;
    }
    let mut answer: serde_json::Value =
        serde_json::from_str(&chat_answer(&model, &content, true, Some(done_reason)))
            .unwrap_or_default();
    answer["prompt_eval_count"] = evaluated.into();
    // Whole nanoseconds, as Ollama sends them.
    answer["prompt_eval_duration"] =
        (((evaluated as f64 / speed.prompt_tokens_per_second) * 1e9) as u64).into();
    answer["eval_count"] = output_tokens.into();
    answer["eval_duration"] =
        (((output_tokens as f64 / speed.output_tokens_per_second) * 1e9) as u64).into();
    answer_chat(stream, request, &answer.to_string(), Wire::Ollama).await;
}

/// `/api/generate` with no prompt, to the simulated model: a load.
pub(super) async fn simulated_load(
    stream: &mut TcpStream,
    state: &Arc<Mutex<State>>,
    request: &serde_json::Value,
) {
    let Some((model, _, num_ctx)) = simulated_request(stream, state, request).await else {
        return;
    };
    let Some(_slot) = simulated_slot(state, &model, num_ctx).await else {
        return;
    };
    simulated_keep(state, &model, num_ctx, request);
    let answer = serde_json::json!({ "model": model, "created_at": "2026-03-01T12:00:00Z",
        "response": "", "done": true, "done_reason": "load" });
    respond(stream, "200 OK", JSON, &answer.to_string()).await;
}
