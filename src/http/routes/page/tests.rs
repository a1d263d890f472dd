use super::{PageAssets, I18N_JSON, INDEX_HTML, QUICK_HTML};

#[test]
fn the_page_names_every_asset_under_its_runs_path() {
    let page = PageAssets::for_run("0123abcd");
    assert!(INDEX_HTML.matches("\"/assets/").count() >= 3);
    assert_eq!(
        page.index_html.matches("\"/assets/").count(),
        page.index_html.matches("\"/assets/0123abcd/").count()
    );
    assert!(page.index_html.contains("src=\"/assets/0123abcd/app.js\""));
    assert!(QUICK_HTML.matches("\"/assets/").count() >= 3);
    assert_eq!(
        page.quick_html.matches("\"/assets/").count(),
        page.quick_html.matches("\"/assets/0123abcd/").count()
    );
    assert!(page
        .quick_html
        .contains("src=\"/assets/0123abcd/quick.js\""));
    let (a, b) = (PageAssets::fresh().unwrap(), PageAssets::fresh().unwrap());
    assert_ne!(a.index_html, b.index_html);
}

use serde_json::Value;

/// The shape of a string: text, a plural (its categories), or a list.
fn shape(value: &Value) -> String {
    match value {
        Value::Object(forms) => format!("plural {:?}", forms.keys().collect::<Vec<_>>()),
        Value::Array(items) => format!("list of {}", items.len()),
        _ => "text".into(),
    }
}

/// A string missing in one language shows as its key on the page: every key is in
/// both, of the same kind, each plural has its "other" form, and a value the page
/// fills in (`{n}`, `{model}`…) is in both.
#[test]
fn both_languages_have_every_string_with_the_same_placeholders() {
    let all: Value = serde_json::from_str(I18N_JSON).expect("web/i18n.json is JSON");
    let (en, ko) = (&all["en"], &all["ko"]);
    let keys = |strings: &Value| {
        strings
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    let (mut en_keys, mut ko_keys) = (keys(en), keys(ko));
    en_keys.sort();
    ko_keys.sort();
    assert_eq!(en_keys, ko_keys);
    let placeholders = |value: &Value| {
        let text = value.to_string();
        let mut found: Vec<String> = text
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_string()))
            .filter(|name| name.chars().all(|c| c.is_ascii_alphanumeric()))
            .collect();
        found.sort();
        found.dedup();
        found
    };
    for key in en_keys {
        let (english, korean) = (&en[&key], &ko[&key]);
        if let Value::Object(forms) = korean {
            assert!(
                forms.contains_key("other"),
                "{key}: no \"other\" form in ko"
            );
            assert!(
                english.get("other").is_some(),
                "{key}: no \"other\" form in en"
            );
        } else {
            assert_eq!(shape(english), shape(korean), "{key}");
        }
        assert_eq!(placeholders(english), placeholders(korean), "{key}");
    }
}
