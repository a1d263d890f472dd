//! Real recordings for the speech-to-text tests, made when the test runs: espeak-ng
//! speaks a sentence (22,050 Hz WAV) and sox makes it 16 kHz mono 16-bit WAV, the form a
//! voice note's recording takes. Made at run time rather than cached so the sentence a
//! test checks the transcript against is written once, in the test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A sentence in English and in Korean, as the tests speak them.
#[derive(Debug, Clone, Copy)]
pub struct Sentence {
    /// espeak-ng's voice: `en-us`, `ko`.
    pub voice: &'static str,
    /// Words per minute. espeak-ng's Korean is clearer a little slower than its default.
    pub rate: u32,
    pub text: &'static str,
}

pub const ENGLISH: Sentence = Sentence {
    voice: "en-us",
    rate: 150,
    text: "Remember to buy milk and bread on the way home tomorrow.",
};

/// "Hello. Thank you." Of the short sentences tried, the one espeak-ng's Korean voice
/// says clearly enough for Whisper base to give its words back (longer ones came back
/// as Hangul syllables of other words).
pub const KOREAN: Sentence = Sentence {
    voice: "ko",
    rate: 120,
    text: "안녕하세요. 감사합니다.",
};

/// `sentence` spoken into `dir/{name}.wav` (16 kHz mono); its path.
pub fn speak(sentence: Sentence, dir: &Path, name: &str) -> PathBuf {
    let spoken = dir.join(format!("{name}-espeak.wav"));
    let wav = dir.join(format!("{name}.wav"));
    run(Command::new("espeak-ng")
        .args(["-v", sentence.voice, "-s", &sentence.rate.to_string(), "-w"])
        .arg(&spoken)
        .arg(sentence.text));
    run(Command::new("sox")
        .arg(&spoken)
        .args(["-r", "16000", "-c", "1", "-b", "16"])
        .arg(&wav));
    wav
}

fn run(command: &mut Command) {
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("{command:?} does not start: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The share of the letters of `text` that are Hangul (syllables and jamo): 1.0 when
/// it is written in Korean's own script, 0.0 when romanised.
pub fn hangul_share(text: &str) -> f64 {
    let letters: Vec<char> = text.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() {
        return 0.0;
    }
    let hangul = letters
        .iter()
        .filter(|c| matches!(**c as u32, 0xAC00..=0xD7A3 | 0x1100..=0x11FF | 0x3130..=0x318F))
        .count();
    hangul as f64 / letters.len() as f64
}
