//! `fulltext(fields = ["title", "body"], language = "english", sqlite_table = "posts_fts")`: parsed, checked (the
//! fields are text fields of the model, checked by rustc at each literal like `search_fields`; the language and the
//! table are plain names) and spelled as core's `FullText`.

use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use crate::lists::StrList;
use crate::tokens::{option, private};

/// The attribute as written.
#[derive(Debug, Clone, FromMeta)]
pub struct FullTextAttr {
    /// Text fields searched.
    pub fields: StrList,
    /// PostgreSQL text search configuration.
    pub language: Option<LitStr>,
    /// The application's FTS5 table on SQLite.
    pub sqlite_table: Option<LitStr>,
}

/// The checked attribute.
pub struct FullText {
    /// Text fields searched.
    pub fields: Vec<LitStr>,
    language: Option<LitStr>,
    sqlite_table: Option<LitStr>,
}

/// Checks `fulltext(...)`; `valid` tells which field names are field names (the caller's check, which reports them).
pub fn check(
    attr: &Option<FullTextAttr>,
    valid: impl Fn(&LitStr, &mut darling::error::Accumulator) -> bool,
    errors: &mut darling::error::Accumulator,
) -> Option<FullText> {
    let attr = attr.as_ref()?;
    let mut fields = Vec::new();
    for field in &attr.fields.0 {
        if field.value().contains("__") {
            let msg = "relation paths are not supported in `fulltext(fields = ...)`: name a text column of this model";
            errors.push(darling::Error::custom(msg).with_span(field));
        } else if valid(field, errors) {
            fields.push(field.clone());
        }
    }
    for (name, hint) in [
        (&attr.language, "a PostgreSQL text search configuration, e.g. \"english\""),
        (&attr.sqlite_table, "the FTS5 table's name, e.g. \"posts_fts\""),
    ] {
        if let Some(lit) = name.as_ref().filter(|lit| !crate::names::is_lowercase_name(&lit.value())) {
            errors.push(
                darling::Error::custom(format!("`{}` is not a plain lowercase name: {hint}", lit.value()))
                    .with_span(lit),
            );
        }
    }
    if attr.fields.0.is_empty() {
        let msg =
            "`fulltext` needs `fields`: the text fields to search, e.g. `fulltext(fields = [\"title\", \"body\"])`";
        errors.push(darling::Error::custom(msg).with_span(&proc_macro2::Span::call_site()));
    }
    Some(FullText { fields, language: attr.language.clone(), sqlite_table: attr.sqlite_table.clone() })
}

/// `FullTextSearchFilter` in `filter_backends` without `fulltext(...)` would search nothing: an error at the backend.
pub fn check_backend(
    backend: Option<&syn::Expr>,
    attr: &Option<FullTextAttr>,
    errors: &mut darling::error::Accumulator,
) {
    if let (Some(backend), None) = (backend, attr) {
        let msg = "`FullTextSearchFilter` needs `fulltext(fields = [...])`: the text fields it searches, e.g. \
                   `fulltext(fields = [\"title\", \"body\"])`";
        errors.push(darling::Error::custom(msg).with_span(backend));
    }
}

/// The `fulltext` value of the configuration constant.
pub fn entry(fulltext: &Option<FullText>) -> TokenStream {
    let vs = private();
    option(fulltext.as_ref().map(|ft| {
        let fields = &ft.fields;
        let language = ft.language.as_ref().map_or_else(|| quote!(#vs::FullText::DEFAULT_LANGUAGE), |l| quote!(#l));
        let table = option(ft.sqlite_table.as_ref().map(|t| quote!(#t)));
        quote!(#vs::FullText { fields: &[#(#fields),*], language: #language, sqlite_table: #table })
    }))
}
