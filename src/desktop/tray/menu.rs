//! The tray menu as data: labels, enabled flags, order, and which icon to show.
//!
//! Open inbox · Quick note… · Export usage log… · Recheck Ollama (enabled only while the provider is
//! not ready; "Recheck the model server" for an OpenAI-compatible one) · Process AI now
//! (N failed) (enabled only when N > 0) · Quit.

use serde::Serialize;

use crate::ai::{ModelServer, ProviderHealth};
use crate::configuration::Locale;
use crate::words::{fill, words};

/// What the menu's words depend on besides the counts: the language, and which kind of
/// model server the provider is (the menu names Ollama, or "the model server").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wording {
    pub locale: Locale,
    pub server: ModelServer,
}

/// What a menu item does when clicked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TrayAction {
    OpenInbox,
    QuickNote,
    ExportUsageLog,
    RecheckProvider,
    ProcessAiNow,
    Quit,
}

/// One menu item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MenuEntry {
    pub action: TrayAction,
    pub label: String,
    pub enabled: bool,
}

/// Which icon the tray shows, most urgent first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TrayIcon {
    /// Ollama is not ready: notes wait.
    ProviderDown,
    /// Some notes failed: "Process AI now" would help.
    FailedNotes,
    Normal,
}

/// The whole menu.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MenuModel {
    pub entries: Vec<MenuEntry>,
    pub icon: TrayIcon,
    /// The hover text.
    pub tooltip: String,
}

impl MenuModel {
    /// The entry for an action.
    pub fn entry(&self, action: TrayAction) -> Option<&MenuEntry> {
        self.entries.iter().find(|e| e.action == action)
    }

    /// Whether a click on `action` should do anything now.
    pub fn is_enabled(&self, action: TrayAction) -> bool {
        self.entry(action).is_some_and(|e| e.enabled)
    }
}

/// Builds the menu. `health` is `None` until the first health check answers.
pub fn build(failed: u64, health: Option<&ProviderHealth>, wording: Wording) -> MenuModel {
    let provider_down = health.is_some_and(|h| !h.is_ready());
    let words = words(wording.locale);
    let server = match wording.server {
        ModelServer::Ollama => "Ollama",
        ModelServer::OpenAiCompatible | ModelServer::SpeechToText => words.tray_model_server,
    };
    let entry = |action, label: &str, enabled| MenuEntry {
        action,
        label: label.to_string(),
        enabled,
    };
    let entries = vec![
        entry(TrayAction::OpenInbox, words.tray_open_notes, true),
        entry(TrayAction::QuickNote, words.tray_quick_note, true),
        entry(
            TrayAction::ExportUsageLog,
            words.tray_export_usage_log,
            true,
        ),
        entry(
            TrayAction::RecheckProvider,
            &fill(words.tray_recheck_provider, &[("server", &server)]),
            provider_down,
        ),
        entry(
            TrayAction::ProcessAiNow,
            &fill(words.tray_process_ai_now, &[("failed", &failed)]),
            failed > 0,
        ),
        entry(TrayAction::Quit, words.tray_quit, true),
    ];
    let icon = if provider_down {
        TrayIcon::ProviderDown
    } else if failed > 0 {
        TrayIcon::FailedNotes
    } else {
        TrayIcon::Normal
    };
    let tooltip = match icon {
        TrayIcon::ProviderDown => match health {
            Some(ProviderHealth::UntrustedListener {
                port, uid, user, ..
            }) => {
                let user = user.clone().unwrap_or_else(|| format!("uid {uid}"));
                fill(
                    words.tray_tooltip_untrusted_listener,
                    &[("port", port), ("user", &user)],
                )
            }
            _ => fill(words.tray_tooltip_provider_down, &[("server", &server)]),
        },
        TrayIcon::FailedNotes => fill(words.tray_tooltip_failed, &[("failed", &failed)]),
        TrayIcon::Normal => "inkling".to_string(),
    };
    MenuModel {
        entries,
        icon,
        tooltip,
    }
}

/// `model` saying how many reminders are due (docs/DESIGN.md, "Reminders"): the count
/// after Open inbox and in the hover text; none due changes nothing.
pub fn with_reminders(mut model: MenuModel, due: u64, locale: Locale) -> MenuModel {
    if due == 0 {
        return model;
    }
    let said = fill(words(locale).tray_reminders_due, &[("due", &due)]);
    if let Some(open) = model
        .entries
        .iter_mut()
        .find(|e| e.action == TrayAction::OpenInbox)
    {
        open.label = format!("{} ({said})", open.label);
    }
    model.tooltip = format!("{}; {said}", model.tooltip);
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_due_reminders_are_counted_after_open_inbox_and_in_the_hover_text() {
        let wording = Wording {
            locale: Locale::En,
            server: ModelServer::Ollama,
        };
        let plain = build(0, None, wording);
        assert_eq!(with_reminders(plain.clone(), 0, Locale::En), plain);
        let due = with_reminders(plain, 3, Locale::En);
        assert_eq!(due.entries[0].label, "Open inbox (3 reminders due)");
        assert_eq!(due.tooltip, "inkling; 3 reminders due");
        let ko = with_reminders(build(0, None, wording), 2, Locale::Ko);
        assert!(ko.tooltip.ends_with("알림 2개 도래"), "{}", ko.tooltip);
    }

    fn labels(model: &MenuModel) -> Vec<&str> {
        model.entries.iter().map(|e| e.label.as_str()).collect()
    }

    fn enabled(model: &MenuModel) -> Vec<bool> {
        model.entries.iter().map(|e| e.enabled).collect()
    }

    const EN: Wording = Wording {
        locale: Locale::En,
        server: ModelServer::Ollama,
    };

    fn down() -> ProviderHealth {
        ProviderHealth::NotRunning {
            detail: "refused".into(),
        }
    }

    #[test]
    fn provider_ready_and_nothing_failed_leaves_recheck_and_process_greyed() {
        let model = build(0, Some(&ProviderHealth::Ready), EN);
        assert_eq!(
            labels(&model),
            [
                "Open inbox",
                "Quick note…",
                "Export usage log…",
                "Recheck Ollama",
                "Process AI now (0 failed)",
                "Quit"
            ]
        );
        assert_eq!(enabled(&model), [true, true, true, false, false, true]);
        assert_eq!(model.icon, TrayIcon::Normal);
    }

    #[test]
    fn failed_notes_enable_process_ai_now_with_the_count_in_the_label() {
        let model = build(3, Some(&ProviderHealth::Ready), EN);
        assert_eq!(model.entries[4].label, "Process AI now (3 failed)");
        assert_eq!(enabled(&model), [true, true, true, false, true, true]);
        assert_eq!(model.icon, TrayIcon::FailedNotes);
        assert!(model.is_enabled(TrayAction::ProcessAiNow));
    }

    #[test]
    fn a_provider_down_enables_recheck_and_wins_the_icon() {
        let model = build(2, Some(&down()), EN);
        assert_eq!(enabled(&model), [true, true, true, true, true, true]);
        assert_eq!(model.icon, TrayIcon::ProviderDown);
        let missing = ProviderHealth::ModelMissing {
            model: "llama3.2".into(),
            server: ModelServer::Ollama,
        };
        assert!(build(0, Some(&missing), EN).is_enabled(TrayAction::RecheckProvider));
    }

    #[test]
    fn before_the_first_health_check_recheck_stays_greyed() {
        let model = build(0, None, EN);
        assert!(!model.is_enabled(TrayAction::RecheckProvider));
        assert_eq!(model.icon, TrayIcon::Normal);
    }

    #[test]
    fn another_users_listener_says_whose_it_is_in_the_tooltip() {
        let held = ProviderHealth::UntrustedListener {
            port: 11434,
            uid: 1001,
            user: Some("mallory".into()),
            server: crate::ai::ModelServer::Ollama,
        };
        let model = build(0, Some(&held), EN);
        assert_eq!(model.icon, TrayIcon::ProviderDown);
        assert!(model.is_enabled(TrayAction::RecheckProvider));
        assert_eq!(
            model.tooltip,
            "inkling: another user (mallory) is listening on the model server's port 11434; no notes are sent to it"
        );
    }

    #[test]
    fn korean_labels_are_the_seed_strings() {
        let ko = Wording {
            locale: Locale::Ko,
            server: ModelServer::Ollama,
        };
        let model = build(4, Some(&down()), ko);
        assert_eq!(
            labels(&model),
            [
                "노트 열기",
                "빠른 메모...",
                "사용 로그 내보내기...",
                "Ollama 재확인",
                "지금 AI 처리 (실패 4건)",
                "종료"
            ]
        );
    }

    #[test]
    fn an_openai_compatible_server_is_named_the_model_server_not_ollama() {
        let openai = |locale| Wording {
            locale,
            server: ModelServer::OpenAiCompatible,
        };
        let model = build(0, Some(&down()), openai(Locale::En));
        assert_eq!(model.entries[3].label, "Recheck the model server");
        assert_eq!(model.tooltip, "inkling: the model server is not available");
        let model = build(0, Some(&down()), openai(Locale::Ko));
        assert_eq!(model.entries[3].label, "모델 서버 재확인");
        assert_eq!(model.tooltip, "inkling: 모델 서버 를 사용할 수 없습니다");
    }
}
