//! Checks of a parsed `Model` and the resolution of each field (sea-orm's defaults applied: a primary key
//! auto-increments unless told otherwise; `max_length` falls back to the column's string length).

use heck::{ToSnakeCase, ToUpperCamelCase};
use syn::Type;

use super::attrs::{ParsedModel, option_inner};

/// One model field, resolved: everything the schemas need.
pub struct Field {
    pub ident: syn::Ident,
    /// The field's type as written.
    pub ty: Type,
    /// The field's type without `Option`.
    pub inner: Type,
    pub nullable: bool,
    pub primary_key: bool,
    pub auto_increment: bool,
    pub has_default: bool,
    pub read_only: bool,
    pub max_length: Option<usize>,
    /// `#[sea_orm(unique)]`.
    pub unique: bool,
}

impl Field {
    /// Clients may send this field on create.
    pub fn writable_on_create(&self) -> bool {
        !(self.read_only || (self.primary_key && self.auto_increment))
    }
    /// Clients may send this field on update (never the primary key).
    pub fn writable_on_update(&self) -> bool {
        !self.read_only && !self.primary_key
    }
    /// The field holds an `f32` (written `f32`, or `Option<f32>`).
    pub fn is_f32(&self) -> bool {
        matches!(&self.inner, Type::Path(p) if p.qself.is_none() && p.path.is_ident("f32"))
    }
    /// A create body must carry this field.
    pub fn required_on_create(&self) -> bool {
        self.writable_on_create() && !self.nullable && !self.has_default
    }
}

/// The model: its name, its fields (the columns, in order) and the fields sea-orm ignores.
pub struct Model {
    pub ident: syn::Ident,
    pub fields: Vec<Field>,
    pub ignored: Vec<syn::Ident>,
}

/// Checks every field, recording mistakes in `errors`; fields sea-orm ignores are left out.
pub fn check(parsed: ParsedModel, errors: &mut darling::error::Accumulator) -> Model {
    let (mut fields, mut ignored) = (Vec::new(), Vec::new());
    for field in parsed.fields {
        if field.sea.ignore {
            ignored.push(field.ident);
            continue;
        }
        errors.handle(check_round_trip(&field.ident));
        let sea = field.sea;
        let (inner, nullable) = match option_inner(&field.ty) {
            Some(inner) => (inner.clone(), true),
            None => (field.ty.clone(), false),
        };
        fields.push(Field {
            ident: field.ident,
            ty: field.ty,
            inner,
            nullable: nullable || sea.nullable,
            primary_key: sea.primary_key,
            auto_increment: sea.auto_increment.unwrap_or(sea.primary_key),
            has_default: sea.has_default,
            read_only: field.options.read_only.is_present(),
            max_length: field.options.max_length.or(sea.string_len),
            unique: sea.unique,
        });
    }
    Model { ident: parsed.ident, fields, ignored }
}

/// sea-orm names a field's `Column` variant in upper camel case, and the field is found again (by sea-orm's
/// `Column::from_str` and by viewset at run time) as that variant in snake case: the name must survive the trip.
fn check_round_trip(ident: &syn::Ident) -> darling::Result<()> {
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    let variant = name.to_upper_camel_case();
    let back = variant.to_snake_case();
    if back == name {
        return Ok(());
    }
    Err(darling::Error::custom(format!(
        "field `{name}` cannot be found by name at run time: sea-orm names its column variant `{variant}`, which reads \
         back as `{back}`; rename the field to `{back}` (keep the column with `#[sea_orm(column_name = \"{name}\")]`)"
    ))
    .with_span(ident))
}
