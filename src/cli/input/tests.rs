use super::*;

#[test]
fn a_note_on_standard_input_is_read_up_to_the_limit_and_no_further() {
    assert_eq!(read_note(&b"a thought"[..], 64).unwrap(), "a thought");
    assert_eq!(read_note(&[b'x'; 64][..], 64).unwrap().len(), 64);
    // An endless input: refused after limit + 1 bytes, not read to its end.
    let endless = std::io::repeat(b'x');
    let error = read_note(endless, 65536).unwrap_err().to_string();
    assert_eq!(
        error,
        "the note is larger than 64 KiB (http.max_body_bytes); shorten it"
    );
    assert!(read_note(&[0xff, 0xfe][..], 64).is_err());
}
