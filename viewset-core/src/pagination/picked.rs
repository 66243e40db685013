//! The JSON of a few named fields of a record, as its `Serialize` writes them, without serializing the others: a
//! cursor carries its boundary row's ordering values, and serializing the whole row into a `serde_json::Value` to
//! read two of them back cost a cursor page more than the rest of its link.

use serde::Serialize;
use serde::ser::{Impossible, SerializeStruct, Serializer};

/// The JSON of the fields `names` of `record` (`null` for one it does not write), when `record` serializes as a
/// struct; `None` for anything else (a map, through `#[serde(flatten)]`; a newtype), for the caller to serialize
/// whole.
pub(super) fn picked<T: Serialize>(record: &T, names: &[&str]) -> Option<Vec<serde_json::Value>> {
    let found = record.serialize(Picker { names }).ok()?;
    Some(found.into_iter().map(Option::unwrap_or_default).collect())
}

struct Picker<'a> {
    names: &'a [&'a str],
}

/// Not a struct, or a field's JSON failed: the caller falls back to the whole record.
#[derive(Debug)]
struct NotPicked;

impl std::fmt::Display for NotPicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a struct")
    }
}

impl std::error::Error for NotPicked {}

impl serde::ser::Error for NotPicked {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        NotPicked
    }
}

type Found = Vec<Option<serde_json::Value>>;

/// Every serializer call but a struct's is refused.
macro_rules! refuse {
    ($($method:ident($($ty:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $ty),*) -> Result<Found, NotPicked> { Err(NotPicked) })*
    };
}

impl<'a> Serializer for Picker<'a> {
    type Ok = Found;
    type Error = NotPicked;
    type SerializeSeq = Impossible<Found, NotPicked>;
    type SerializeTuple = Impossible<Found, NotPicked>;
    type SerializeTupleStruct = Impossible<Found, NotPicked>;
    type SerializeTupleVariant = Impossible<Found, NotPicked>;
    type SerializeMap = Impossible<Found, NotPicked>;
    type SerializeStruct = Fields<'a>;
    type SerializeStructVariant = Impossible<Found, NotPicked>;

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<V: ?Sized + Serialize>(self, _: &V) -> Result<Found, NotPicked> {
        Err(NotPicked)
    }
    fn serialize_newtype_struct<V: ?Sized + Serialize>(self, _: &'static str, _: &V) -> Result<Found, NotPicked> {
        Err(NotPicked)
    }
    fn serialize_newtype_variant<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<Found, NotPicked> {
        Err(NotPicked)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotPicked> {
        Err(NotPicked)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotPicked> {
        Err(NotPicked)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, NotPicked> {
        Err(NotPicked)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotPicked> {
        Err(NotPicked)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotPicked> {
        Err(NotPicked)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fields<'a>, NotPicked> {
        Ok(Fields { names: self.names, found: vec![None; self.names.len()] })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotPicked> {
        Err(NotPicked)
    }
}

/// A struct's fields as they are written: the named ones serialized to JSON, the others skipped.
struct Fields<'a> {
    names: &'a [&'a str],
    found: Found,
}

impl SerializeStruct for Fields<'_> {
    type Ok = Found;
    type Error = NotPicked;

    fn serialize_field<V: ?Sized + Serialize>(&mut self, key: &'static str, value: &V) -> Result<(), NotPicked> {
        for (name, slot) in self.names.iter().zip(&mut self.found) {
            if *name == key {
                *slot = Some(serde_json::to_value(value).map_err(|_| NotPicked)?);
            }
        }
        Ok(())
    }

    fn end(self) -> Result<Found, NotPicked> {
        Ok(self.found)
    }
}

#[cfg(test)]
mod tests {
    use super::picked;
    use serde::Serialize;
    use serde_json::json;

    #[derive(Serialize)]
    struct Row {
        id: i32,
        #[serde(rename = "headline")]
        title: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        rating: Option<f64>,
        created_at: chrono::DateTime<chrono::Utc>,
    }

    #[derive(Serialize)]
    struct Flat {
        #[serde(flatten)]
        row: Row,
    }

    fn row() -> Row {
        Row { id: 7, title: "x".into(), rating: None, created_at: chrono::DateTime::UNIX_EPOCH }
    }

    #[test]
    fn the_named_fields_as_the_whole_record_writes_them() {
        let names = ["created_at", "headline", "rating", "id", "missing"];
        let whole = serde_json::to_value(row()).unwrap();
        let expected: Vec<_> = names.iter().map(|n| whole.get(n).cloned().unwrap_or_default()).collect();
        assert_eq!(picked(&row(), &names), Some(expected));
        assert_eq!(picked(&row(), &["id"]), Some(vec![json!(7)]));
    }

    #[test]
    fn anything_but_a_struct_is_left_to_the_caller() {
        assert_eq!(picked(&Flat { row: row() }, &["id"]), None);
        assert_eq!(picked(&json!({"id": 7}), &["id"]), None);
        assert_eq!(picked(&7, &["id"]), None);
    }
}
