//! The fields of a sea-orm `Model` as typed data, from its `#[sea_orm(...)]` and `#[viewset(...)]` attributes.

use darling::FromMeta;
use heck::{ToSnakeCase, ToUpperCamelCase};
use syn::{Data, Fields, GenericArgument, PathArguments, Type};

/// Field options of `#[viewset(...)]` on a model field.
#[derive(Debug, Default, FromMeta)]
pub struct FieldOptions {
    /// Clients can read the field but never write it (server-set columns such as `created_at`).
    #[darling(default)]
    pub read_only: darling::util::Flag,
    /// Longest accepted string, in characters.
    #[darling(default)]
    pub max_length: Option<usize>,
}

/// One model field with everything the schemas need.
pub struct Field {
    pub ident: syn::Ident,
    /// The field's type without `Option`.
    pub inner: Type,
    pub nullable: bool,
    pub primary_key: bool,
    pub auto_increment: bool,
    pub has_default: bool,
    pub read_only: bool,
    pub max_length: Option<usize>,
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
    /// A create body must carry this field.
    pub fn required_on_create(&self) -> bool {
        self.writable_on_create() && !self.nullable && !self.has_default
    }
}

/// The model: its name and fields.
pub struct Model {
    pub ident: syn::Ident,
    pub fields: Vec<Field>,
}

pub fn parse(input: &syn::DeriveInput) -> darling::Result<Model> {
    let Data::Struct(data) = &input.data else {
        return Err(darling::Error::custom("`ModelSchema` derives from a sea-orm `Model` struct with named fields")
            .with_span(&input.ident));
    };
    let Fields::Named(named) = &data.fields else {
        return Err(
            darling::Error::custom("`ModelSchema` needs named fields, as in a sea-orm `Model`").with_span(&input.ident)
        );
    };
    let mut errors = darling::Error::accumulator();
    let mut fields = Vec::new();
    for field in &named.named {
        if let Some(parsed) = errors.handle(parse_field(field)).flatten() {
            fields.push(parsed);
        }
    }
    errors.finish_with(Model { ident: input.ident.clone(), fields })
}

/// `Ok(None)` for a field sea-orm ignores.
fn parse_field(field: &syn::Field) -> darling::Result<Option<Field>> {
    let ident = field.ident.clone().expect("named field");
    let mut sea = SeaOrm::default();
    let mut options = FieldOptions::default();
    let mut errors = darling::Error::accumulator();
    for attr in &field.attrs {
        if attr.path().is_ident("sea_orm") {
            errors.handle(sea.read(attr));
        } else if attr.path().is_ident("viewset")
            && let Some(o) = errors.handle(FieldOptions::from_meta(&attr.meta))
        {
            options = o;
        }
    }
    errors.finish()?;
    if sea.ignore {
        return Ok(None);
    }
    check_round_trip(&ident)?;
    let (inner, nullable) = match option_inner(&field.ty) {
        Some(inner) => (inner.clone(), true),
        None => (field.ty.clone(), false),
    };
    Ok(Some(Field {
        ident,
        inner,
        nullable: nullable || sea.nullable,
        primary_key: sea.primary_key,
        auto_increment: sea.auto_increment.unwrap_or(sea.primary_key),
        has_default: sea.has_default,
        read_only: options.read_only.is_present(),
        max_length: options.max_length.or(sea.string_len),
    }))
}

/// What the model's own `#[sea_orm(...)]` attributes say about a field.
#[derive(Default)]
struct SeaOrm {
    primary_key: bool,
    auto_increment: Option<bool>,
    has_default: bool,
    nullable: bool,
    ignore: bool,
    string_len: Option<usize>,
}

impl SeaOrm {
    fn read(&mut self, attr: &syn::Attribute) -> darling::Result<()> {
        attr.parse_nested_meta(|meta| {
            let name = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match name.as_str() {
                "primary_key" => self.primary_key = true,
                "nullable" => self.nullable = true,
                "ignore" => self.ignore = true,
                "auto_increment" => {
                    let value: syn::LitBool = meta.value()?.parse()?;
                    self.auto_increment = Some(value.value);
                }
                "default_value" | "default_expr" | "default" => {
                    self.has_default = true;
                    let _: syn::Expr = meta.value()?.parse()?;
                }
                "column_type" => {
                    let value: syn::LitStr = meta.value()?.parse()?;
                    self.string_len = string_len(&value.value());
                }
                _ => {
                    // Any other sea-orm option is sea-orm's business: skip its value if it has one.
                    if meta.input.peek(syn::Token![=]) {
                        let _: syn::Expr = meta.value()?.parse()?;
                    } else if meta.input.peek(syn::token::Paren) {
                        let _ = meta.parse_nested_meta(|_| Ok(()));
                    }
                }
            }
            Ok(())
        })
        .map_err(darling::Error::from)
    }
}

/// `String(StringLen::N(200))` → 200.
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

fn string_len(column_type: &str) -> Option<usize> {
    let start = column_type.find("StringLen::N(")? + "StringLen::N(".len();
    let rest = &column_type[start..];
    rest[..rest.find(')')?].trim().parse().ok()
}

fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        GenericArgument::Type(inner) => Some(inner),
        _ => None,
    }
}
