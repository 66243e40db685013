//! A JSON body read as an object only ([`from_object`]): serde_json's own deserializer, except that a struct is read
//! as a map. serde_json reads a struct from an array too (fields by position), so every body type's derived
//! `visit_seq` was compiled with its `visit_map`, though bodies that are arrays are refused before they are read
//! (`body.rs` `refuse_non_objects`): some 1,000 lines of LLVM IR per ViewSet (bench/notes/build-time-rounds.md).
//! What a body reads, and every error it answers, is serde_json's.

use serde::de::{DeserializeOwned, Visitor};
use serde_json::de::SliceRead;

/// `T` from the JSON object `bytes` (trailing characters refused as `serde_json::from_slice` refuses them).
pub(crate) fn from_object<T: DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = T::deserialize(Object(&mut de))?;
    de.end()?;
    Ok(value)
}

/// serde_json's deserializer with a struct read as a map.
struct Object<'a, 'de>(&'a mut serde_json::Deserializer<SliceRead<'de>>);

/// Methods handed on to serde_json's deserializer as they are.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> serde_json::Result<V::Value> {
            self.0.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for Object<'_, 'de> {
    type Error = serde_json::Error;

    forward! {
        deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(), deserialize_i32(),
        deserialize_i64(), deserialize_i128(), deserialize_u8(), deserialize_u16(), deserialize_u32(),
        deserialize_u64(), deserialize_u128(), deserialize_f32(), deserialize_f64(), deserialize_char(),
        deserialize_str(), deserialize_string(), deserialize_bytes(), deserialize_byte_buf(), deserialize_option(),
        deserialize_unit(), deserialize_unit_struct(name: &'static str), deserialize_newtype_struct(name: &'static str),
        deserialize_seq(), deserialize_tuple(len: usize), deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_map(), deserialize_enum(name: &'static str, variants: &'static [&'static str]),
        deserialize_identifier(), deserialize_ignored_any(),
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> serde_json::Result<V::Value> {
        self.0.deserialize_map(visitor)
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::from_object;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Body {
        n: i32,
        s: Option<String>,
    }

    #[test]
    fn reads_an_object_as_serde_json_does() {
        let read = |text: &str| from_object::<Body>(text.as_bytes()).map_err(|e| e.to_string());
        assert_eq!(read(r#"{"n": 1, "s": "x"}"#), Ok(Body { n: 1, s: Some("x".into()) }));
        for text in [r#"{"n": "x"}"#, r#"{"n": 1, "t": 2}"#, r#"{"n": 1} x"#, r#""s""#, r#"{"n": 1"#, "[1, null]"] {
            let theirs = serde_json::from_slice::<Body>(text.as_bytes()).map_err(|e| e.to_string());
            match text {
                // serde_json reads an array as the fields by position; an object-only body refuses it.
                "[1, null]" => assert!(theirs.is_ok() && read(text).is_err()),
                _ => assert_eq!(read(text), theirs, "{text}"),
            }
        }
    }
}
