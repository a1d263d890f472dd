//! Strict value types for the settings. The `config` crate converts between types
//! silently (`port = 27412.5` became 27413, `enabled = "no"` became false, `data_dir = 5`
//! became "5"); these accept only a value of the right type, so a wrong one stops
//! start-up with a message that names the key.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

/// A whole number of type `T`: not a fraction, not text in quotes, in `T`'s range.
pub fn whole<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64> + TryFrom<i64>,
{
    deserializer.deserialize_any(WholeVisitor(PhantomData))
}

/// A list of whole numbers. Its items may be digits in text too: a list from the
/// environment (`INKLING_WORKER__RETRY_BACKOFFS_MS=0,5000`) arrives as text.
pub fn whole_list<'de, D>(deserializer: D) -> Result<Vec<u64>, D::Error>
where
    D: Deserializer<'de>,
{
    struct ListVisitor;
    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Vec<u64>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of whole numbers")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u64>, A::Error> {
            let mut list = Vec::new();
            while let Some(WholeItem(n)) = seq.next_element::<WholeItem>()? {
                list.push(n);
            }
            Ok(list)
        }
    }
    deserializer.deserialize_any(ListVisitor)
}

/// A list of texts (user names). Its items may be whole numbers too: a uid in the
/// file, or digits from the environment (`INKLING_AI__TRUSTED_LISTENERS=alice,1005`),
/// which the environment layer reads as numbers.
pub fn text_list<'de, D>(deserializer: D) -> Result<Vec<String>, D::Error>
where
    D: Deserializer<'de>,
{
    struct ListVisitor;
    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of texts in quotes")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut list = Vec::new();
            while let Some(TextItem(text)) = seq.next_element::<TextItem>()? {
                list.push(text);
            }
            Ok(list)
        }
    }
    deserializer.deserialize_any(ListVisitor)
}

/// One item of a list of texts: text, or a whole number written as its digits.
struct TextItem(String);

impl<'de> Deserialize<'de> for TextItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ItemVisitor;
        impl Visitor<'_> for ItemVisitor {
            type Value = String;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("text in quotes")
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
                Ok(value.to_string())
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<String, E> {
                Ok(value.to_string())
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<String, E> {
                u64::try_from(value)
                    .map(|value| value.to_string())
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(value), &"a uid"))
            }
        }
        deserializer.deserialize_any(ItemVisitor).map(TextItem)
    }
}

/// `true` or `false`, nothing else.
pub fn boolean<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    struct BoolVisitor;
    impl Visitor<'_> for BoolVisitor {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("true or false")
        }
        fn visit_bool<E: de::Error>(self, value: bool) -> Result<bool, E> {
            Ok(value)
        }
    }
    deserializer.deserialize_any(BoolVisitor)
}

/// Text, in quotes in the file.
pub fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    struct TextVisitor;
    impl Visitor<'_> for TextVisitor {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("text in quotes")
        }
        fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
            Ok(value.to_string())
        }
        fn visit_string<E: de::Error>(self, value: String) -> Result<String, E> {
            Ok(value)
        }
    }
    deserializer.deserialize_any(TextVisitor)
}

/// One item of a list of whole numbers: a number, or digits in text.
struct WholeItem(u64);

impl<'de> Deserialize<'de> for WholeItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ItemVisitor;
        impl Visitor<'_> for ItemVisitor {
            type Value = u64;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a whole number")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<u64, E> {
                WholeVisitor(PhantomData).visit_u64(value)
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<u64, E> {
                WholeVisitor(PhantomData).visit_i64(value)
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<u64, E> {
                let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
                digits
                    .then(|| value.parse().ok())
                    .flatten()
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(value), &self))
            }
        }
        deserializer.deserialize_any(ItemVisitor).map(WholeItem)
    }
}

struct WholeVisitor<T>(PhantomData<T>);

impl<T: TryFrom<u64> + TryFrom<i64>> Visitor<'_> for WholeVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a whole number")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<T, E> {
        T::try_from(value)
            .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(value), &"a smaller number"))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<T, E> {
        T::try_from(value).map_err(|_| {
            E::invalid_value(
                de::Unexpected::Signed(value),
                &"a number in range, not negative",
            )
        })
    }
}

/// A URL with a scheme and a host, or why it is not one.
pub fn http_url(value: &str) -> Result<(), String> {
    let url = value.trim_end_matches('/');
    if !(url.starts_with("http://") || url.starts_with("https://"))
        || url.split("://").nth(1).is_none_or(str::is_empty)
    {
        return Err(format!("\"{value}\" is not an http:// URL"));
    }
    Ok(())
}
