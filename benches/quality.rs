//! The AI's quality on the labelled corpus (benches/quality/): reads the passes
//! `scripts/measure-quality.py` wrote (every note's title and tags as the real model gave
//! them, every question's search hits and Ask answer) and prints the figures of
//! docs/PERFORMANCE.md, "AI quality", one table row per pass.
//!
//! Run: `cargo bench --profile dev --bench quality -- PASS.json [PASS.json …]` (the
//! script does, after its pass). Under `cargo test` (no files) it does nothing.
//!
//! What each figure means, over the notes the model answered:
//! - **tag precision**: the share of the AI's tags that name one of the note's
//!   hand-written topics (the same tag, a near-duplicate of it as `tests/support/sprawl.rs`
//!   defines them — "recipes" for "recipe", "gardening" for "garden" — or a synonym
//!   from [`SYNONYMS`]); **recall**: the share of hand-written topics some tag names;
//! - **distinct tags per 100 notes** and **near-duplicate pairs** (`tests/support/sprawl.rs`);
//! - **unsupported**: the share of tags none of whose words appears in the note (as a
//!   word of it, in another form of the same stem, or for Korean as a part of its text);
//! - **top tag share**: the share of notes carrying the most common tag;
//! - **schema words**: tags that are a word of the answer's schema or of the prompt;
//! - **faithful titles**: the share of titles every word of which is in the note (in
//!   some form) or in a short list of words any title may use;
//! - **recall@5**: the share of questions with a note that answers them among the first
//!   five search hits: of the hybrid search, of its hits found by meaning, by words;
//! - **Ask cites**: the share of questions whose answer cites a note that answers them
//!   (an answer the service counted as none, the question or the prompt said back, cites
//!   nothing).

#[path = "../tests/support/sprawl.rs"]
mod sprawl;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use inkling::tags::key;
use sprawl::{kinship, sprawl, Kinship};

/// Words a model may use for a hand-written topic, beyond its near-duplicates.
const SYNONYMS: &[(&str, &[&str])] = &[
    (
        "renovation",
        &[
            "home improvement",
            "remodel",
            "remodeling",
            "diy",
            "home renovation",
            "house",
            "construction",
            "contractor",
        ],
    ),
    ("kitchen", &["kitchen renovation", "kitchen remodel"]),
    (
        "running",
        &[
            "run",
            "jogging",
            "marathon",
            "half marathon",
            "training",
            "race",
            "exercise",
            "fitness",
            "10k",
            "5k",
        ],
    ),
    ("half-marathon", &["running", "marathon", "race"]),
    ("work", &["job", "office"]),
    ("billing", &["invoices", "invoice", "billing migration"]),
    (
        "postgres",
        &[
            "postgresql",
            "database",
            "databases",
            "mysql",
            "migration",
            "sql",
            "db",
            "data migration",
        ],
    ),
    ("korean", &["korea", "hangul", "한국어", "한국"]),
    (
        "language-learning",
        &[
            "language",
            "languages",
            "learning",
            "study",
            "lesson",
            "lessons",
            "vocabulary",
            "language learning",
        ],
    ),
    ("allotment", &["vegetable garden", "garden"]),
    (
        "gardening",
        &["garden", "plants", "vegetables", "growing", "allotment"],
    ),
    ("school", &["education"]),
    ("family", &["kids", "children", "parenting", "mia", "child"]),
    (
        "tax",
        &["taxes", "tax return", "accountant", "self assessment"],
    ),
    (
        "finance",
        &[
            "money",
            "finances",
            "budget",
            "pension",
            "mortgage",
            "bank",
            "insurance",
            "expenses",
            "personal finance",
        ],
    ),
    (
        "cooking",
        &[
            "food",
            "recipe",
            "recipes",
            "baking",
            "meal",
            "dinner",
            "meal prep",
        ],
    ),
    ("recipe", &["recipes", "cooking", "food"]),
    ("baking", &["bread", "sourdough", "cooking"]),
    (
        "travel",
        &[
            "trip",
            "holiday",
            "vacation",
            "flights",
            "flight",
            "hotel",
            "travel planning",
        ],
    ),
    ("lisbon", &["portugal"]),
    (
        "books",
        &["book", "reading", "book club", "novel", "literature"],
    ),
    ("reading", &["books", "book", "book club"]),
    (
        "health",
        &[
            "physio", "dentist", "injury", "knee", "doctor", "medical", "sleep",
        ],
    ),
    ("car", &["mot", "vehicle", "tyre", "tyres"]),
    ("insurance", &["car insurance"]),
    ("food", &["restaurants", "restaurant", "seafood", "cooking"]),
    ("meeting", &["meetings", "sync", "1:1"]),
    ("mortgage", &["finance", "bank"]),
    ("pension", &["retirement", "finance"]),
    ("photos", &["photo", "album"]),
    ("shopping", &["groceries", "grocery", "shopping list"]),
    ("groceries", &["shopping", "grocery", "food"]),
    ("ideas", &["idea", "app idea"]),
    ("gifts", &["gift", "birthday", "present"]),
    ("movies", &["movie", "films", "film", "cinema", "watchlist"]),
    ("home", &["house", "household", "wifi", "maintenance"]),
    ("maintenance", &["boiler", "repair", "home"]),
    ("wifi", &["internet", "network", "home network"]),
    ("writing", &["blog", "blog post"]),
    ("career", &["promotion", "work"]),
    ("history", &["azulejos", "tiles", "culture"]),
    ("seoul", &["korea", "travel"]),
    ("sleep", &["rest", "recovery"]),
    ("quotes", &["quote", "motivation"]),
];

/// Words of the enrichment's schema and prompt: never a topic.
const SCHEMA_WORDS: &[&str] = &[
    "title",
    "titles",
    "tag",
    "tags",
    "summary",
    "summaries",
    "note",
    "notes",
    "body",
    "json",
    "schema",
    "text",
    "keyword",
    "keywords",
    "topic",
    "topics",
    "none",
    "null",
    "untitled",
];

/// Words any title may use without the note saying them.
const TITLE_STOP_WORDS: &[&str] = &[
    "a", "an", "the", "of", "for", "and", "or", "to", "in", "on", "at", "with", "about", "from",
    "by", "my", "our", "your", "is", "are", "be", "it", "its", "this", "that", "these", "new",
    "next", "note", "notes", "plan", "plans", "update", "list", "reminder", "idea", "ideas", "day",
    "today", "week", "weekly", "vs", "and", "&", "-", "—", ":", "how", "what", "why", "when",
    "where", "who", "which", "do", "does", "did", "not", "no", "more", "some",
];

#[derive(serde::Deserialize)]
struct PassNote {
    body: String,
    labels: Vec<String>,
    title: Option<String>,
    tags: Vec<String>,
    ai_status: String,
}

#[derive(serde::Deserialize)]
struct Hit {
    id: String,
    found_by: String,
}

#[derive(serde::Deserialize)]
struct Asked {
    notes: Vec<String>,
    answer: String,
    /// The stream's end: `answered` false when the service counted it no answer (the
    /// model only said the question or its prompt back), whose citations do not count.
    #[serde(default)]
    done: Option<Done>,
}

#[derive(serde::Deserialize)]
struct Done {
    #[serde(default)]
    answered: bool,
}

#[derive(serde::Deserialize)]
struct PassQuestion {
    answers: Vec<String>,
    hits: Vec<Hit>,
    ask: Asked,
}

#[derive(serde::Deserialize)]
struct Pass {
    label: String,
    notes: Vec<PassNote>,
    #[serde(default)]
    questions: Vec<PassQuestion>,
}

fn read(path: &Path) -> Result<Pass, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not a pass: {e}", path.display()))
}

/// The lowercase words of `text` (letters and digits; Hangul kept whole).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `word` appears in `note_words` as itself or another form of its stem.
fn said(word: &str, note_words: &HashSet<String>, note_text: &str) -> bool {
    if note_words.contains(word) {
        return true;
    }
    if !word.is_ascii() {
        // Korean and other scripts without spaces between a word and its particle.
        return note_text.contains(word);
    }
    note_words.iter().any(|w| {
        matches!(
            kinship(word, w),
            Some(Kinship::Spelling | Kinship::Plural | Kinship::Stem)
        )
    })
}

/// Whether `tag` names the topic `label`.
fn names(tag: &str, label: &str) -> bool {
    let (tk, lk) = (key(tag), key(label));
    if tk == lk
        || matches!(
            kinship(tag, label),
            Some(Kinship::Spelling | Kinship::Plural | Kinship::Stem)
        )
    {
        return true;
    }
    SYNONYMS
        .iter()
        .filter(|(topic, _)| key(topic) == lk)
        .flat_map(|(_, others)| others.iter())
        .any(|other| key(other) == tk)
}

struct Figures {
    answered: usize,
    precision: f64,
    recall: f64,
    distinct_per_100: f64,
    near_duplicates: usize,
    unsupported: f64,
    top_tag: (String, f64),
    schema_words: usize,
    faithful_titles: f64,
    recall_hybrid: f64,
    recall_meaning: f64,
    recall_words: f64,
    ask_cites: f64,
    questions: usize,
}

fn share(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        n as f64 / of as f64
    }
}

/// Whether one of `answers` is among the first five of `hits` kept by `keep`.
fn in_first_five(hits: &[Hit], answers: &[String], keep: impl Fn(&Hit) -> bool) -> bool {
    hits.iter()
        .filter(|h| keep(h))
        .take(5)
        .any(|h| answers.contains(&h.id))
}

/// The note numbers `[n]` an answer cites.
fn citations(answer: &str) -> Vec<usize> {
    let mut cited = Vec::new();
    let mut rest = answer;
    while let Some(open) = rest.find('[') {
        rest = &rest[open + 1..];
        if let Some(close) = rest.find(']') {
            if let Ok(n) = rest[..close].trim().parse::<usize>() {
                cited.push(n);
            }
        }
    }
    cited
}

fn figures(pass: &Pass) -> Figures {
    let answered: Vec<&PassNote> = pass
        .notes
        .iter()
        .filter(|n| n.ai_status == "done")
        .collect();
    let (mut right, mut given, mut labels, mut hit_labels, mut unsupported, mut schema) =
        (0, 0, 0, 0, 0, 0);
    let mut faithful = 0;
    let mut by_tag: BTreeMap<&str, usize> = BTreeMap::new();
    for note in &answered {
        let note_words: HashSet<String> = words(&note.body).into_iter().collect();
        let lower = note.body.to_lowercase();
        for tag in &note.tags {
            given += 1;
            *by_tag.entry(tag).or_default() += 1;
            if note.labels.iter().any(|label| names(tag, label)) {
                right += 1;
            }
            if !words(tag).iter().any(|w| said(w, &note_words, &lower)) {
                unsupported += 1;
            }
            if SCHEMA_WORDS.contains(&key(tag).as_str()) {
                schema += 1;
            }
        }
        for label in &note.labels {
            labels += 1;
            if note.tags.iter().any(|tag| names(tag, label)) {
                hit_labels += 1;
            }
        }
        let title = note.title.as_deref().unwrap_or_default();
        if !title.is_empty()
            && words(title)
                .iter()
                .all(|w| TITLE_STOP_WORDS.contains(&w.as_str()) || said(w, &note_words, &lower))
        {
            faithful += 1;
        }
    }
    let tags: Vec<Vec<String>> = answered.iter().map(|n| n.tags.clone()).collect();
    let spread = sprawl(&tags);
    let top_tag = by_tag
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(tag, n)| (tag.to_string(), share(*n, answered.len())))
        .unwrap_or_default();
    let questions = &pass.questions;
    let count = |keep: &dyn Fn(&PassQuestion) -> bool| questions.iter().filter(|q| keep(q)).count();
    let hybrid = count(&|q| in_first_five(&q.hits, &q.answers, |_| true));
    let meaning = count(&|q| {
        in_first_five(&q.hits, &q.answers, |h| {
            h.found_by == "meaning" || h.found_by == "both"
        })
    });
    let by_words = count(&|q| {
        in_first_five(&q.hits, &q.answers, |h| {
            h.found_by == "words" || h.found_by == "both"
        })
    });
    let cites = count(&|q| {
        let answered = q.ask.done.as_ref().is_none_or(|done| done.answered);
        answered
            && citations(&q.ask.answer).iter().any(|n| {
                n.checked_sub(1)
                    .and_then(|i| q.ask.notes.get(i))
                    .is_some_and(|id| q.answers.contains(id))
            })
    });
    Figures {
        answered: answered.len(),
        precision: share(right, given),
        recall: share(hit_labels, labels),
        distinct_per_100: spread.distinct_per_100_notes,
        near_duplicates: spread.near_duplicates.len(),
        unsupported: share(unsupported, given),
        top_tag,
        schema_words: schema,
        faithful_titles: share(faithful, answered.len()),
        recall_hybrid: share(hybrid, questions.len()),
        recall_meaning: share(meaning, questions.len()),
        recall_words: share(by_words, questions.len()),
        ask_cites: share(cites, questions.len()),
        questions: questions.len(),
    }
}

fn main() {
    let files: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if files.is_empty() {
        // `cargo test` runs benches with no arguments: nothing to measure.
        return;
    }
    println!(
        "| pass | notes answered | tag precision | tag recall | distinct tags /100 notes | \
         near-duplicate pairs | unsupported tags | top tag (share of notes) | schema-word tags | \
         faithful titles | recall@5 hybrid / meaning / words | Ask cites an answering note |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut common: HashMap<String, Vec<(String, usize)>> = HashMap::new();
    for file in &files {
        let pass = match read(Path::new(file)) {
            Ok(pass) => pass,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let f = figures(&pass);
        println!(
            "| {} | {}/{} | {:.2} | {:.2} | {:.0} | {} | {:.0} % | {} ({:.0} %) | {} | {:.0} % | \
             {:.2} / {:.2} / {:.2} ({} questions) | {:.0} % |",
            pass.label,
            f.answered,
            pass.notes.len(),
            f.precision,
            f.recall,
            f.distinct_per_100,
            f.near_duplicates,
            100.0 * f.unsupported,
            f.top_tag.0,
            100.0 * f.top_tag.1,
            f.schema_words,
            100.0 * f.faithful_titles,
            f.recall_hybrid,
            f.recall_meaning,
            f.recall_words,
            f.questions,
            100.0 * f.ask_cites,
        );
        let mut counts: HashMap<String, usize> = HashMap::new();
        for note in &pass.notes {
            for tag in &note.tags {
                *counts.entry(tag.clone()).or_default() += 1;
            }
        }
        let mut counts: Vec<(String, usize)> = counts.into_iter().collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counts.truncate(10);
        common.insert(pass.label.clone(), counts);
    }
    for (label, counts) in common {
        let list: Vec<String> = counts.iter().map(|(t, n)| format!("{t} ({n})")).collect();
        println!("\n{label}: most common tags: {}", list.join(", "));
    }
}
