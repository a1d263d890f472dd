//! The tools the real-model tests run, found through the environment that
//! `scripts/real-model-tools.sh` writes (`${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools/env`,
//! which `scripts/test.sh` loads before the tests): llama.cpp's `llama-server`, Gemma 3
//! 270M, and the chat template the server is given.
//!
//! Without them these tests fail, naming what is missing and the command that provides
//! it: a test that passed or skipped without a model would say the provider works when
//! nothing checked it.

use std::path::PathBuf;

/// The command that builds and assembles the tools, and the step that hands them over.
const HOW_TO_GET_THEM: &str = "run scripts/real-model-tools.sh (it builds llama-server and \
assembles Gemma 3 270M into ${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools, ~10 min or more \
the first time), then load what it wrote: `set -a; . \"${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools/env\"; set +a` \
(scripts/test.sh does both)";

/// Where the three tools are.
#[derive(Debug, Clone)]
pub struct Tools {
    /// `LLAMA_SERVER`: the `llama-server` binary.
    pub llama_server: PathBuf,
    /// `GEMMA_MODEL`: Gemma 3 270M (Q4_K_M) as one GGUF file.
    pub model: PathBuf,
    /// `GEMMA_CHAT_TEMPLATE`: Gemma's turn format as a Jinja file (the model file has none).
    pub chat_template: PathBuf,
}

impl Tools {
    /// The tools named by the environment; panics naming every one that is missing.
    pub fn from_env() -> Tools {
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
        let tools = Tools {
            llama_server: path("LLAMA_SERVER", "llama.cpp's llama-server binary"),
            model: path("GEMMA_MODEL", "the Gemma 3 270M GGUF file"),
            chat_template: path("GEMMA_CHAT_TEMPLATE", "Gemma's chat template"),
        };
        assert!(
            missing.is_empty(),
            "the real-model tests need llama-server and Gemma 3 270M: {}. To get them: {HOW_TO_GET_THEM}.",
            missing.join("; ")
        );
        tools
    }
}
