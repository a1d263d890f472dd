//! The environment layer: which `INKLING_*` variables are settings.
//!
//! A setting's variable is `INKLING_<SECTION>__<KEY>` (`INKLING_HTTP__PORT`) or, for a
//! top-level key, `INKLING_<KEY>` (`INKLING_DATA_DIR`), for the keys the embedded
//! defaults list (`config/default.toml` has every key). Any other `INKLING_` variable
//! is not a setting and is left alone: the model server's key may live in one
//! (`INKLING_OPENAI_KEY`, the example the defaults give), as may a tool's own
//! variables. Taking every `INKLING_` variable as a setting made such a variable stop
//! start-up as an unknown field.
//!
//! A variable with the section separator (`__`) that names no key is still refused, so
//! a typo (`INKLING_HTTP__PROT`) is said instead of silently ignored, unless it is the
//! variable `openai.api_key_env` names (the key's variable may have any name).

use std::collections::{BTreeSet, HashMap};

use config::{Value, ValueKind};

const PREFIX: &str = "INKLING_";
const SEPARATOR: &str = "__";

/// The environment split for the settings' layer.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct SettingsVariables {
    /// The variables that name a key, for the layer.
    pub taken: HashMap<String, String>,
    /// `INKLING_<SECTION>__<KEY>` variables that name no key (sorted): a typo, or the
    /// key's variable.
    pub unknown: Vec<String>,
}

/// Every key the defaults list, as the layer spells it: `data_dir`, `http.port`.
pub(super) fn known_keys(defaults: &config::Map<String, Value>) -> BTreeSet<String> {
    fn walk(prefix: &str, table: &config::Map<String, Value>, keys: &mut BTreeSet<String>) {
        for (name, value) in table {
            let key = match prefix {
                "" => name.clone(),
                prefix => format!("{prefix}.{name}"),
            };
            match &value.kind {
                ValueKind::Table(inner) => walk(&key, inner, keys),
                _ => {
                    keys.insert(key);
                }
            }
        }
    }
    let mut keys = BTreeSet::new();
    walk("", defaults, &mut keys);
    keys
}

/// The key a variable names, as the `config` crate reads it (prefix dropped, `__` a
/// dot, lower case); `None` for a variable without the prefix.
fn key_of(variable: &str) -> Option<String> {
    let rest = variable.strip_prefix(PREFIX)?;
    Some(rest.to_lowercase().replace(SEPARATOR, "."))
}

/// Splits `env` into the variables that are settings and the would-be settings that
/// name no key.
pub(super) fn settings_variables(
    env: &HashMap<String, String>,
    known: &BTreeSet<String>,
) -> SettingsVariables {
    let mut split = SettingsVariables::default();
    for (variable, value) in env {
        let Some(key) = key_of(variable) else {
            continue;
        };
        if known.contains(&key) {
            split.taken.insert(variable.clone(), value.clone());
        } else if variable.contains(SEPARATOR) {
            split.unknown.push(variable.clone());
        }
    }
    split.unknown.sort();
    split
}

/// The refusal of a would-be setting that names no key.
pub(super) fn unknown_variable(variable: &str) -> String {
    let key = key_of(variable).unwrap_or_default();
    format!(
        "the environment variable {variable} names no setting ({key}); settings in the \
         environment are INKLING_<SECTION>__<KEY> for a key in config/default.toml, as \
         INKLING_HTTP__PORT for http.port"
    )
}

#[cfg(test)]
mod tests;
