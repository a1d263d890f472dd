use std::path::Path;

use super::*;

#[test]
fn the_first_bytes_say_the_format_before_the_name_does() {
    let wav = b"RIFF\x24\x00\x00\x00WAVEfmt ";
    assert_eq!(
        format_of(Path::new("memo.mp3"), wav),
        Some(AudioFormat::Wav)
    );
    assert_eq!(
        format_of(Path::new("memo.webm"), b"\x00\x01 unknown"),
        Some(AudioFormat::WebmOpus),
        "bytes that say nothing: the name"
    );
    assert_eq!(
        format_of(Path::new("memo.OGG"), b"??"),
        Some(AudioFormat::OggOpus)
    );
    assert_eq!(format_of(Path::new("notes.txt"), b"just words"), None);
    assert_eq!(format_of(Path::new("no-extension"), b"just words"), None);
}
