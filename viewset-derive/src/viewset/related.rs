//! Related paths (`"author__name"` in `filterable_fields` / `ordering_fields`) and `relations(author =
//! author::Entity)`: parsed here, resolved against the declared relations (a path through an undeclared one is our
//! error at its literal), and spelled as checks rustc runs at the user's tokens: the model implements
//! `sea_orm::Related<author::Entity>` (at the entity path) and `name` is a field of the related model (at the literal).

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Expr, LitStr, Meta};

use crate::tokens::{private, respan};

/// `relations(author = author::Entity, ...)`: the relations related paths may go through, each with the entity at
/// its other end. A mistaken entry is kept aside in `mistakes` (reported by `check`) so the others still resolve.
#[derive(Debug, Default, Clone)]
pub struct RelationMap {
    /// The declared relations.
    pub entries: Vec<(syn::Ident, syn::Path)>,
    /// Entries that are no `name = <path>` or repeat a name: the message and the offending tokens.
    pub mistakes: Vec<(String, TokenStream)>,
}

impl FromMeta for RelationMap {
    fn from_none() -> Option<Self> {
        Some(RelationMap::default())
    }

    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        let mut map = RelationMap::default();
        let hint = "expected `name = <module>::Entity`, e.g. `relations(author = author::Entity)`";
        for item in items {
            let NestedMeta::Meta(Meta::NameValue(pair)) = item else {
                map.mistakes.push((hint.into(), quote!(#item)));
                continue;
            };
            let (Some(name), Expr::Path(entity)) = (pair.path.get_ident(), &pair.value) else {
                map.mistakes.push((hint.into(), quote!(#pair)));
                continue;
            };
            if map.entries.iter().any(|(seen, _)| seen == name) {
                map.mistakes.push((format!("`{name}` is declared twice in `relations`"), quote!(#name)));
                continue;
            }
            map.entries.push((name.clone(), entity.path.clone()));
        }
        Ok(map)
    }
}

/// A related path that resolved: `"author__name"` through `author = author::Entity`.
#[derive(Clone)]
pub struct RelatedPath {
    /// The user's literal.
    pub lit: LitStr,
    /// The relation's declared name.
    pub relation: String,
    /// The related entity, as written in `relations(...)`.
    pub entity: syn::Path,
    /// The related field, spanned at the literal.
    pub field: LitStr,
}

/// Splits the related paths (names holding `__`) out of `names`: each distinct path resolves against `relations`
/// or is reported at its literal. Returns the related paths, each once.
pub fn resolve<'a>(
    names: impl Iterator<Item = &'a LitStr>,
    relations: &RelationMap,
    errors: &mut darling::error::Accumulator,
) -> Vec<RelatedPath> {
    for (msg, tokens) in &relations.mistakes {
        errors.push(darling::Error::custom(msg).with_span(tokens));
    }
    let mut out: Vec<RelatedPath> = Vec::new();
    for lit in names {
        let value = lit.value();
        let Some((relation, field)) = value.split_once("__") else { continue };
        if out.iter().any(|p| p.lit.value() == value) {
            continue;
        }
        if field.contains("__") || field.is_empty() || relation.is_empty() {
            let msg = format!(
                "`{value}`: a related path is one relation deep, `<relation>__<field>` (e.g. \"author__name\")"
            );
            errors.push(darling::Error::custom(msg).with_span(lit));
            continue;
        }
        let Some((_, entity)) = relations.entries.iter().find(|(name, _)| name == relation) else {
            let declared: Vec<String> = relations.entries.iter().map(|(name, _)| name.to_string()).collect();
            let known = match declared.is_empty() {
                true => String::new(),
                false => format!(" (declared: {})", declared.join(", ")),
            };
            let msg = format!(
                "`{value}` goes through `{relation}`, which is not declared in `relations`{known}: add \
                 `relations({relation} = <module>::Entity)` naming the related entity"
            );
            errors.push(darling::Error::custom(msg).with_span(lit));
            continue;
        };
        out.push(RelatedPath {
            lit: lit.clone(),
            relation: relation.to_string(),
            entity: entity.clone(),
            field: LitStr::new(field, lit.span()),
        });
    }
    out
}

/// `RelatedField` entries of the configuration constant.
pub fn entries(model: &syn::Path, paths: &[RelatedPath]) -> TokenStream {
    let vs = private();
    let entries = paths.iter().map(|p| {
        let (lit, relation, field, entity) = (&p.lit, &p.relation, &p.field, &p.entity);
        let def = respan(quote!(<#model as #vs::Related<#entity>>::to), entity.span());
        let via = respan(quote!(<#model as #vs::Related<#entity>>::via), entity.span());
        quote! {
            #vs::RelatedField {
                path: #lit,
                relation: #relation,
                field: #field,
                def: #def,
                via: #via,
                column_type: #vs::column_type_of::<#entity>,
            }
        }
    });
    quote!(&[#(#entries),*])
}

/// Checks that each related field exists on its related model (at the literal) and, when `links`, that the model
/// implements `Related` to each entity (the configuration constant names it otherwise).
pub fn checks(model: &syn::Path, paths: &[RelatedPath], links: bool) -> TokenStream {
    let vs = private();
    let fields = paths.iter().map(|p| {
        let (entity, field) = (&p.entity, &p.field);
        let name = quote!(#entity).to_string().replace(' ', "");
        let fields = quote!(<<#entity as #vs::EntityTrait>::Model as #vs::ModelSchema>::FIELDS);
        let call = respan(quote!(#vs::known_field(#fields, #field, #name)), p.lit.span());
        quote!(const _: bool = #call;)
    });
    let links = paths.iter().filter(|_| links).map(|p| {
        let entity = &p.entity;
        let def = respan(quote!(<#model as #vs::Related<#entity>>::to), entity.span());
        quote!(let _ = #def;)
    });
    quote!(#(#fields)* #(#links)*)
}

/// The `expandable` names that are not declared in `relations(...)`: each names a `Relation` variant of the model.
pub(super) fn variant_names(expandable: &[syn::LitStr], relations: &RelationMap) -> Vec<syn::LitStr> {
    let declared = |name: &syn::LitStr| relations.entries.iter().any(|(declared, _)| *declared == name.value());
    expandable.iter().filter(|name| !declared(name)).cloned().collect()
}

/// `expandable` names are snake_case relation names, each once (rustc checks the `Relation` variant exists).
pub(super) fn check_expandable(
    attrs: &super::attrs::ViewSetAttrs,
    errors: &mut darling::error::Accumulator,
) -> Vec<syn::LitStr> {
    let mut out: Vec<syn::LitStr> = Vec::new();
    for name in &attrs.expandable.0 {
        let value = name.value();
        let snake = value.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && value.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        let message = if !snake {
            format!(
                "`{value}` is not a relation name: write the model's `Relation` variant in snake_case, e.g. \"author\" for `Relation::Author`"
            )
        } else if out.iter().any(|seen| seen.value() == value) {
            format!("`{value}` is listed twice in `expandable`")
        } else {
            out.push(name.clone());
            continue;
        };
        errors.push(darling::Error::custom(message).with_span(name));
    }
    out
}
