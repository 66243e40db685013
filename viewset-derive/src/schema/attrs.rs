//! The fields of a sea-orm `Model` as typed data: its `#[sea_orm(...)]` attributes and the field options of
//! `#[viewset(...)]`, as written (`check` resolves them).

use darling::FromMeta;
use syn::{Data, Fields, GenericArgument, PathArguments, Type};

/// Field options of `#[viewset(...)]` on a model field.
#[derive(Debug, Default, FromMeta)]
pub struct FieldOptions {
    /// Clients can read the field but never write it (server-set columns such as `created_at`).
    pub read_only: darling::util::Flag,
    /// Longest accepted string, in characters.
    pub max_length: Option<usize>,
}

/// One named field as written.
pub struct ParsedField {
    /// The field's name.
    pub ident: syn::Ident,
    /// Its type as written (maybe `Option<T>`).
    pub ty: Type,
    /// Its `#[sea_orm(...)]` options.
    pub sea: SeaOrm,
    /// Its `#[viewset(...)]` options.
    pub options: FieldOptions,
}

/// The model as written.
pub struct ParsedModel {
    /// The model struct (`Model`).
    pub ident: syn::Ident,
    /// Its named fields, in order.
    pub fields: Vec<ParsedField>,
}

/// Parses every field, recording each attribute mistake in `errors`; a field whose attributes fail is still
/// returned (with what did parse), so that `check` reports its other mistakes in the same build.
pub fn parse(input: &syn::DeriveInput, errors: &mut darling::error::Accumulator) -> Option<ParsedModel> {
    let hint = "derive `ModelSchema` on the sea-orm `Model` struct, whose named fields are the table's columns";
    let named = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => named,
            _ => {
                errors.push(
                    darling::Error::custom(format!("`ModelSchema` needs named fields: {hint}")).with_span(&input.ident),
                );
                return None;
            }
        },
        _ => {
            errors.push(
                darling::Error::custom(format!("`ModelSchema` derives from a struct: {hint}")).with_span(&input.ident),
            );
            return None;
        }
    };
    let fields = named.named.iter().map(|field| parse_field(field, errors)).collect();
    Some(ParsedModel { ident: input.ident.clone(), fields })
}

fn parse_field(field: &syn::Field, errors: &mut darling::error::Accumulator) -> ParsedField {
    let mut sea = SeaOrm::default();
    let mut options = FieldOptions::default();
    for attr in &field.attrs {
        if attr.path().is_ident("sea_orm") {
            errors.handle(sea.read(attr));
        } else if attr.path().is_ident("viewset")
            && let Some(o) = errors.handle(FieldOptions::from_meta(&attr.meta))
        {
            options = o;
        }
    }
    ParsedField { ident: field.ident.clone().expect("named field"), ty: field.ty.clone(), sea, options }
}

/// What the model's own `#[sea_orm(...)]` attributes say about a field.
#[derive(Default)]
pub struct SeaOrm {
    pub primary_key: bool,
    pub auto_increment: Option<bool>,
    pub has_default: bool,
    pub nullable: bool,
    pub ignore: bool,
    pub string_len: Option<usize>,
    /// `unique`: the column has a unique index.
    pub unique: bool,
}

impl SeaOrm {
    fn read(&mut self, attr: &syn::Attribute) -> darling::Result<()> {
        attr.parse_nested_meta(|meta| {
            let name = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match name.as_str() {
                "primary_key" => self.primary_key = true,
                "nullable" => self.nullable = true,
                "ignore" => self.ignore = true,
                "unique" => self.unique = true,
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
fn string_len(column_type: &str) -> Option<usize> {
    let start = column_type.find("StringLen::N(")? + "StringLen::N(".len();
    let rest = &column_type[start..];
    rest[..rest.find(')')?].trim().parse().ok()
}

/// `T` of `Option<T>`.
pub fn option_inner(ty: &Type) -> Option<&Type> {
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
