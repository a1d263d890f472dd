use super::*;

#[test]
fn a_content_type_names_its_format_whatever_its_parameters() {
    assert_eq!(
        AudioFormat::from_content_type("audio/wav"),
        Some(AudioFormat::Wav)
    );
    assert_eq!(
        AudioFormat::from_content_type("audio/x-wav"),
        Some(AudioFormat::Wav)
    );
    assert_eq!(
        AudioFormat::from_content_type("audio/webm;codecs=opus"),
        Some(AudioFormat::WebmOpus)
    );
    assert_eq!(
        AudioFormat::from_content_type("Audio/Ogg; codecs=opus"),
        Some(AudioFormat::OggOpus)
    );
    assert_eq!(
        AudioFormat::from_content_type("audio/mpeg"),
        Some(AudioFormat::Mp3)
    );
    assert_eq!(AudioFormat::from_content_type("text/plain"), None);
    assert_eq!(AudioFormat::from_content_type(""), None);
}

#[test]
fn each_format_is_stored_under_an_extension_that_reads_back() {
    for format in [
        AudioFormat::Wav,
        AudioFormat::WebmOpus,
        AudioFormat::OggOpus,
        AudioFormat::Mp3,
    ] {
        assert_eq!(
            AudioFormat::from_extension(format.extension()),
            Some(format)
        );
        assert_eq!(
            AudioFormat::from_content_type(format.content_type()),
            Some(format)
        );
    }
}

#[test]
fn the_first_bytes_say_the_format() {
    assert_eq!(
        AudioFormat::sniff(b"RIFF\x24\x00\x00\x00WAVEfmt "),
        Some(AudioFormat::Wav)
    );
    assert_eq!(
        AudioFormat::sniff(b"OggS\x00\x02"),
        Some(AudioFormat::OggOpus)
    );
    assert_eq!(
        AudioFormat::sniff(&[0x1A, 0x45, 0xDF, 0xA3, 0x01]),
        Some(AudioFormat::WebmOpus)
    );
    assert_eq!(AudioFormat::sniff(b"ID3\x04\x00"), Some(AudioFormat::Mp3));
    assert_eq!(
        AudioFormat::sniff(&[0xFF, 0xFB, 0x90]),
        Some(AudioFormat::Mp3)
    );
    assert_eq!(AudioFormat::sniff(b"hello, world"), None);
    assert_eq!(AudioFormat::sniff(b""), None);
}

#[test]
fn a_recording_is_refused_for_its_type_first_then_empty_then_too_big() {
    assert_eq!(
        accept_recording(Some("audio/wav"), 10, 100),
        Ok(AudioFormat::Wav)
    );
    assert_eq!(
        accept_recording(Some("text/plain"), 0, 100),
        Err(VoiceRefusal::WrongType("text/plain".into()))
    );
    assert_eq!(
        accept_recording(None, 10, 100),
        Err(VoiceRefusal::WrongType(String::new()))
    );
    assert_eq!(
        accept_recording(Some("audio/ogg"), 0, 100),
        Err(VoiceRefusal::Empty)
    );
    assert_eq!(
        accept_recording(Some("audio/webm"), 101, 100),
        Err(VoiceRefusal::TooLarge {
            size: 101,
            limit: 100
        })
    );
    assert_eq!(
        accept_recording(Some("audio/webm"), 100, 100),
        Ok(AudioFormat::WebmOpus)
    );
    let words = VoiceRefusal::WrongType("text/plain".into()).to_string();
    assert!(
        words.contains("audio/wav") && words.contains("text/plain"),
        "{words}"
    );
}
