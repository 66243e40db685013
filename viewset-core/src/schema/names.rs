//! Allowlist names checked at compile time with our own message. `#[derive(ModelViewSet)]` evaluates
//! [`known_field`] in a constant for every name in an allowlist, so a misspelt name is a compile error at the
//! user's literal that lists the model's fields and the closest one, in the same build as every other error of
//! the derive. [`FieldAt`] (implemented by `#[derive(ModelSchema)]`, keyed by [`name_hash`]) then gives the
//! field's type for checks such as "`search_fields` are text", and the field itself for `lookup_field`, only for
//! names that exist ([`Gate`]), so a misspelt name gets one error, not two.

use std::marker::PhantomData;

use super::FieldInfo;

/// The model field whose name hashes to `H` (see [`name_hash`]): its type and the field itself. Implemented by
/// `#[derive(ModelSchema)]` for every field.
///
/// ```
/// use viewset_core::schema::names::{FieldAt, name_hash};
/// struct Model {
///     title: Option<String>,
/// }
/// impl FieldAt<{ name_hash("title") }> for Model {
///     type Type = String;
///     type Value = Option<String>;
///     fn get(model: &Self) -> &Option<String> {
///         &model.title
///     }
/// }
/// let model = Model { title: Some("x".into()) };
/// let _: <Model as FieldAt<{ name_hash("title") }>>::Type = String::new();
/// assert_eq!(<Model as FieldAt<{ name_hash("title") }>>::get(&model).as_deref(), Some("x"));
/// ```
pub trait FieldAt<const H: u64> {
    /// The field's type, without `Option`.
    type Type: ?Sized;
    /// The field's type as declared (`Option<_>` when nullable).
    type Value;
    /// The field of `model`.
    fn get(model: &Self) -> &Self::Value;
}

/// The 64-bit FNV-1a hash of a field name: the key of its [`FieldAt`] impl.
///
/// ```
/// use viewset_core::schema::names::name_hash;
/// assert_ne!(name_hash("title"), name_hash("titel"));
/// ```
pub const fn name_hash(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    let mut i = 0;
    while i < bytes.len() {
        hash = (hash ^ bytes[i] as u64).wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    hash
}

/// Field `H` of model `M` when `KNOWN` (its [`Resolved::Type`] is the field's type, [`Resolved::get`] the field);
/// a name [`known_field`] has already reported when not (its types are then `String`, so no second error follows:
/// the generated code never names a field the model may not have).
///
/// ```
/// use viewset_core::schema::names::{FieldAt, Gate, Resolved};
/// struct Model {
///     id: i32,
/// }
/// impl FieldAt<7> for Model {
///     type Type = i32;
///     type Value = i32;
///     fn get(model: &Self) -> &i32 {
///         &model.id
///     }
/// }
/// let field: <Gate<Model, 7, true> as Resolved>::Type = 1;
/// let unknown: <Gate<Model, 8, false> as Resolved>::Type = String::new();
/// assert_eq!(<Gate<Model, 7, true> as Resolved>::get(&Model { id: 3 }), &3);
/// # let _ = (field, unknown);
/// ```
pub struct Gate<M, const H: u64, const KNOWN: bool>(PhantomData<M>);

/// What a [`Gate`] resolves to.
pub trait Resolved {
    /// The field's type without `Option` (`String` for an unknown name).
    type Type: ?Sized;
    /// The model.
    type Model;
    /// The field's declared type (`String` for an unknown name).
    type Value;
    /// The field of `model` (an empty `String` for an unknown name, which never compiles into a program).
    fn get(model: &Self::Model) -> &Self::Value;
}

impl<M: FieldAt<H>, const H: u64> Resolved for Gate<M, H, true> {
    type Type = M::Type;
    type Model = M;
    type Value = M::Value;
    fn get(model: &M) -> &M::Value {
        M::get(model)
    }
}

impl<M, const H: u64> Resolved for Gate<M, H, false> {
    type Type = String;
    type Model = M;
    type Value = String;
    fn get(_: &M) -> &String {
        static UNKNOWN: String = String::new();
        &UNKNOWN
    }
}

/// `true` when `name` is one of `fields`; otherwise it panics, which in the constant the derive evaluates is a
/// compile error at the user's literal: `unknown field `titel`: the fields of `post::Entity` are id, title,
/// body; did you mean `title`?`
///
/// ```
/// use viewset_core::schema::FieldInfo;
/// use viewset_core::schema::names::known_field;
/// const FIELDS: &[FieldInfo] = &[FieldInfo {
///     name: "title",
///     nullable: false,
///     primary_key: false,
///     read_only: false,
///     required_on_create: true,
///     max_length: None,
///     unique: false,
/// }];
/// const KNOWN: bool = known_field(FIELDS, "title", "post::Entity");
/// assert!(KNOWN);
/// ```
pub const fn known_field(fields: &[FieldInfo], name: &str, model: &str) -> bool {
    let mut i = 0;
    while i < fields.len() {
        if same(fields[i].name, name) {
            return true;
        }
        i += 1;
    }
    let mut message = Message { buf: [0; 1024], len: 0 };
    message.push("unknown field `");
    message.push(name);
    message.push("`: the fields of `");
    message.push(model);
    message.push("` are ");
    let mut i = 0;
    while i < fields.len() {
        if i > 0 {
            message.push(", ");
        }
        message.push(fields[i].name);
        i += 1;
    }
    if let Some(closest) = closest(fields, name) {
        message.push("; did you mean `");
        message.push(closest);
        message.push("`?");
    }
    match message.text() {
        Some(text) => panic!("{}", text),
        None => panic!("unknown field in an allowlist"),
    }
}

/// `true` when `name` is a field of `fields` with a unique index (`#[sea_orm(unique)]`, or the primary key);
/// otherwise it panics, which in the constant the derive evaluates for each `upsert_keys` name is a compile error at
/// the user's literal (an unknown name gets [`known_field`]'s message).
///
/// ```
/// use viewset_core::schema::FieldInfo;
/// use viewset_core::schema::names::unique_field;
/// const FIELDS: &[FieldInfo] = &[FieldInfo {
///     name: "slug",
///     nullable: true,
///     primary_key: false,
///     read_only: false,
///     required_on_create: false,
///     max_length: None,
///     unique: true,
/// }];
/// const UNIQUE: bool = unique_field(FIELDS, "slug", "post::Entity");
/// assert!(UNIQUE);
/// ```
pub const fn unique_field(fields: &[FieldInfo], name: &str, model: &str) -> bool {
    known_field(fields, name, model);
    let mut i = 0;
    while i < fields.len() {
        if same(fields[i].name, name) && fields[i].unique {
            return true;
        }
        i += 1;
    }
    let mut message = Message { buf: [0; 1024], len: 0 };
    message.push("`upsert_keys` names `");
    message.push(name);
    message.push("`, which is not unique in `");
    message.push(model);
    message.push("`: an upsert key is a field with `#[sea_orm(unique)]` (or the primary key)");
    match message.text() {
        Some(text) => panic!("{}", text),
        None => panic!("an upsert key that is not unique"),
    }
}

/// A message built at compile time (cut at 1 KiB).
struct Message {
    buf: [u8; 1024],
    len: usize,
}

impl Message {
    const fn push(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < self.buf.len() {
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
    }

    const fn text(&self) -> Option<&str> {
        match std::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(text) => Some(text),
            Err(_) => None,
        }
    }
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The field closest to `name` by edit distance, when close enough to be a likely misspelling.
const fn closest<'a>(fields: &'a [FieldInfo], name: &str) -> Option<&'a str> {
    let mut best: Option<&str> = None;
    let mut best_distance = usize::MAX;
    let mut i = 0;
    while i < fields.len() {
        let distance = edit_distance(fields[i].name, name);
        if distance < best_distance {
            best = Some(fields[i].name);
            best_distance = distance;
        }
        i += 1;
    }
    let limit = if name.len() / 3 > 2 { name.len() / 3 } else { 2 };
    if best_distance <= limit { best } else { None }
}

/// Levenshtein distance (names longer than 63 bytes are never close).
pub(crate) const fn edit_distance(a: &str, b: &str) -> usize {
    const MAX: usize = 64;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() >= MAX || b.len() >= MAX {
        return usize::MAX;
    }
    let mut previous = [0usize; MAX];
    let mut current = [0usize; MAX];
    let mut j = 0;
    while j <= b.len() {
        previous[j] = j;
        j += 1;
    }
    let mut i = 1;
    while i <= a.len() {
        current[0] = i;
        let mut j = 1;
        while j <= b.len() {
            let substitution = previous[j - 1] + if a[i - 1] == b[j - 1] { 0 } else { 1 };
            let deletion = previous[j] + 1;
            let insertion = current[j - 1] + 1;
            let mut best = substitution;
            if deletion < best {
                best = deletion;
            }
            if insertion < best {
                best = insertion;
            }
            current[j] = best;
            j += 1;
        }
        previous = current;
        i += 1;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("title", "titel"), 2);
        assert_eq!(edit_distance("name", "nme"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("views", "views"), 0);
    }

    fn field(name: &'static str) -> FieldInfo {
        FieldInfo {
            name,
            nullable: false,
            primary_key: false,
            read_only: false,
            required_on_create: false,
            max_length: None,
            unique: name == "id",
        }
    }

    #[test]
    fn the_message_lists_the_fields_and_the_closest() {
        let fields = [field("id"), field("title"), field("body")];
        assert!(known_field(&fields, "body", "post::Entity"));
        let message = std::panic::catch_unwind(|| known_field(&fields, "titel", "post::Entity")).unwrap_err();
        let text = message.downcast_ref::<String>().unwrap();
        assert_eq!(
            text,
            "unknown field `titel`: the fields of `post::Entity` are id, title, body; did you mean `title`?"
        );
        let far = std::panic::catch_unwind(|| known_field(&fields, "zzzzzz", "post::Entity")).unwrap_err();
        assert!(!far.downcast_ref::<String>().unwrap().contains("did you mean"));
    }
}
