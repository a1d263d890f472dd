//! The list of sentences: [`Words`], one field a sentence, which each language fills.

/// Declares [`Words`] and its [`Words::entries`] from one list of field names, so the list
/// of sentences is written once.
macro_rules! words {
    ($($(#[doc = $doc:literal])* $name:ident),+ $(,)?) => {
        /// One language's sentences. `{name}` marks a value filled in by [`fill`].
        #[derive(Debug)]
        pub struct Words {
            $($(#[doc = $doc])* pub $name: &'static str,)+
        }

        impl Words {
            /// Every sentence with its field name, for the parity test.
            pub fn entries(&self) -> Vec<(&'static str, &'static str)> {
                vec![$((stringify!($name), self.$name)),+]
            }
        }
    };
}

words! {
    /// Tray: opens the notes page.
    tray_open_notes,
    /// Tray: opens the quick-capture window (`inkling quick`).
    tray_quick_note,
    /// Tray: writes the usage log to a file.
    tray_export_usage_log,
    /// Tray: asks the provider again now; `{server}` is "Ollama" or [`Words::tray_model_server`].
    tray_recheck_provider,
    /// Tray: an OpenAI-compatible model server, named in the sentences with `{server}`.
    tray_model_server,
    /// Tray: retries every failed note; `{failed}` is how many.
    tray_process_ai_now,
    /// Tray: quits the service.
    tray_quit,
    /// Reminder notification: its heading, before the note's title.
    reminder_due,
    /// Reminder notification: one missed by more than an hour; `{at}` is its time.
    reminder_overdue,
    /// Reminder notification: many at once; `{due}` and `{overdue}` are counts.
    reminder_summary,
    /// Reminder notification's button: dealt with.
    reminder_done,
    /// Reminder notification's button: an hour later.
    reminder_snooze,
    /// Reminder notification's button: the note on the page.
    reminder_open,
    /// The daily review's notification: its heading.
    review_title,
    /// The daily review's notification: `{due}` reminders due today, `{captured}` notes
    /// captured yesterday.
    review_body,
    /// Tray: how many reminders are due; `{due}` is the count.
    tray_reminders_due,
    /// Tray hover text while the provider cannot work; `{server}` as above.
    tray_tooltip_provider_down,
    /// Tray hover text while another user's program holds the model server's port;
    /// `{port}` is the port, `{user}` the user's name or uid.
    tray_tooltip_untrusted_listener,
    /// Tray hover text while notes have failed; `{failed}` is how many.
    tray_tooltip_failed,
    /// stats.md: the heading.
    stats_title,
    /// stats.md: where it comes from; `{at}` is when it was made.
    stats_generated,
    /// stats.md: no events at all.
    stats_empty,
    /// stats.md: the table's columns.
    stats_column_date,
    stats_column_captured,
    stats_column_ai_done,
    stats_column_ai_failed_schema,
    stats_column_ai_failed_other,
    stats_column_rechecks,
    stats_column_retries,
    /// stats.md: the totals' heading and lines.
    stats_totals,
    stats_total_captured,
    stats_total_ai_done,
    stats_total_ai_failed,
    stats_total_rechecks,
    stats_total_recoveries,
    stats_total_retries,
    stats_total_enrich_requests,
    stats_total_edited,
    stats_total_tags_renamed,
    stats_total_transfers,
    stats_total_trash,
    stats_total_model_time,
    /// The model's time, by use (`ModelUse`).
    model_use_kept,
    model_use_loading,
    model_use_timeout,
    model_use_schema,
    model_use_other,
    model_use_unreachable,
    model_use_model_missing,
    model_use_edited,
    model_use_deleted,
    model_use_unsaved,
    model_use_asked,
    model_use_vectors,
    /// A length of time: under a minute, under an hour, longer.
    duration_seconds,
    duration_minutes,
    duration_hours,
    /// "1 h 2 min: kept 91 %, loading 2 %, wasted 7 % (…)".
    model_time_summary,
    /// Appended to the summary when questions took some of the model's time: ", answering
    /// questions {asked} %".
    model_time_asked,
    /// Appended likewise for the notes' vectors: ", making vectors {vectors} %".
    model_time_vectors,
    /// Appended when calls were hung up at their deadline: how many, and how long the
    /// server went on after them as measured.
    model_time_hung_up,
    /// The model's time while it is under a second: shares of it would mislead.
    model_time_none,
    /// Ask: why an answer did not come (the notes are shown anyway), one line each.
    ask_no_notes,
    ask_model_down,
    ask_model_missing,
    ask_model_unavailable,
    ask_failed,
    ask_replaced,
    ask_echoed,
    ask_too_long,
}
