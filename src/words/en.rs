//! English.

use super::table::Words;

pub const EN: Words = Words {
    tray_open_notes: "Open inbox",
    tray_export_usage_log: "Export usage log…",
    tray_recheck_provider: "Recheck Ollama",
    tray_process_ai_now: "Process AI now ({failed} failed)",
    tray_quit: "Quit",
    tray_tooltip_provider_down: "inkling: Ollama is not available",
    tray_tooltip_failed: "inkling: AI failed for {failed} notes",
    stats_title: "# inkling usage",
    stats_generated:
        "Generated {at} from the local usage log. Nothing in it ever leaves this machine.",
    stats_empty: "No events yet.",
    stats_column_date: "date (UTC)",
    stats_column_captured: "captured",
    stats_column_ai_done: "AI done",
    stats_column_ai_failed_schema: "AI failed (schema)",
    stats_column_ai_failed_other: "AI failed (other)",
    stats_column_rechecks: "Ollama rechecks",
    stats_column_retries: "AI retries",
    stats_totals: "## Totals",
    stats_total_captured: "- Notes captured: {n}",
    stats_total_ai_done: "- AI done: {n}",
    stats_total_ai_failed: "- AI failed: {n} (schema {schema}, other {other})",
    stats_total_rechecks: "- Manual Ollama rechecks: {n}",
    stats_total_recoveries: "- Ollama recoveries: {n}",
    stats_total_retries: "- AI manual retry usage: {times} times / {notes} notes total",
    stats_total_enrich_requests: "- One note's AI asked for again: {n} times",
    stats_total_edited: "- Notes edited: {n}",
    stats_total_tags_renamed: "- Tags renamed: {n} (merged into another: {merged})",
    stats_total_transfers: "- Notes exported: {exports} times; notes imported: {imported}",
    stats_total_trash: "- Notes trashed: {trashed}, restored: {restored}",
    stats_total_model_time: "- Model time: {time}",
};
