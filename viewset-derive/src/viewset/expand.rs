//! Code generation for a checked ViewSet: one `impl ViewSet` of constants and thin calls into `viewset_core`,
//! the default `impl Hooks`, and constants and never-called functions whose only job is to check field names and
//! types at the user's tokens. Every value was resolved by `check`; this module only spells it.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, LitStr};

use super::config::{Config, DefaultLimit, FieldChecks};
use crate::tokens::{option, private, respan, visitor_fn};

/// The type alias (emitted by [`field_checks`]) through which the generated routes read the `lookup_field`: a
/// `Gate` that resolves to the field only when `known_field` accepts the name, so a misspelt name is reported once,
/// by our check at the literal, and never as rustc's "no field" error on top.
const LOOKUP_ALIAS: &str = "__ViewsetLookup";

/// The `ViewSet` impl (and the default `Hooks` impl, field checks and discovery entry) of a checked ViewSet.
pub fn expand(config: &Config) -> TokenStream {
    let ident = &config.ident;
    let model = &config.model;
    let vs = private();
    let model_ty = quote!(<#model as #vs::EntityTrait>::Model);
    let bodies = &config.bodies;
    // Every use of `ModelSchema` is spelt at the model's first token, so that a model without it is one error
    // there (rustc reports an unmet bound once per span), not one per generated item.
    let model_span = model.span();
    let derived = |assoc: TokenStream| respan(quote!(<#model_ty as #vs::ModelSchema>::#assoc), model_span);
    let decode_rows = derived(quote!(decode_rows));
    let create = spanned_or(&bodies.create, derived(quote!(Create)));
    let update = spanned_or(&bodies.update, derived(quote!(Update)));
    let list_item = bodies.list_item.as_ref().map_or_else(|| model_ty.clone(), |p| quote!(#p));
    let detail = bodies.detail.as_ref().map_or_else(|| model_ty.clone(), |p| quote!(#p));
    let pagination = spanned_or(&config.pagination, quote!(#vs::LimitOffsetPagination));
    let read_schema = |custom: &Option<syn::Path>| match custom {
        Some(_) => quote!(#vs::free_form_schema()),
        None => derived(quote!(read_schema())),
    };
    let list_schema = read_schema(&bodies.list_item);
    let detail_schema = read_schema(&bodies.detail);

    let config_const = config_const(config);
    let name = ident.to_string();
    let public = config.public;
    let lookup = syn::Ident::new(LOOKUP_ALIAS, Span::call_site());
    let permissions =
        visitor_fn(&syn::Ident::new("permission_classes", Span::call_site()), "Permission", &config.permissions);
    let policies = visitor_fn(&syn::Ident::new("row_policies", Span::call_site()), "RowPolicy", &config.policies);
    let backends = backend_calls(&config.filter_backends);
    let field_checks = field_checks(&config.fields);
    let limit_check = limit_check(&config.default_limit);
    let reserved_checks = config.filterable_fields.iter().map(reserved_check);
    // With `custom_hooks` the application writes `impl Hooks`; the discovery entry below needs it, and names the
    // type with the flag's span so that a missing impl is reported once, at the flag.
    let (hooks, hooks_ty) = match config.custom_hooks {
        Some(span) => (quote!(), syn::Ident::new(&ident.to_string(), span)),
        None => (quote!(#[diagnostic::do_not_recommend] impl #vs::Hooks for #ident {}), ident.clone()),
    };
    let schema_ref = quote!(#vs::utoipa::openapi::RefOr<#vs::utoipa::openapi::schema::Schema>);
    quote! {
        const _: () = {
            impl #vs::ViewSet for #ident {
                type Entity = #model;
                type Create = #create;
                type Update = #update;
                type ListItem = #list_item;
                type Detail = #detail;
                type Pagination = #pagination;
                const CONFIG: #vs::Config = #config_const;

                fn lookup_schema() -> #schema_ref {
                    #vs::schema_of(<#lookup as #vs::Resolved>::get)
                }
                fn list_item_schema() -> #schema_ref {
                    #list_schema
                }
                fn detail_schema() -> #schema_ref {
                    #detail_schema
                }
                fn actions() -> ::std::vec::Vec<#vs::ActionInfo> {
                    #[allow(unused_imports)]
                    use #vs::{ActionRoutes as _, NoActions as _};
                    (&#vs::Probe::<Self>::new()).describe()
                }
                fn lookup_value(raw: &str) -> ::core::result::Result<#vs::Value, #vs::ApiError> {
                    #vs::parse_lookup(raw, <#lookup as #vs::Resolved>::get)
                }
                #permissions
                fn register_actions<S>(router: #vs::axum::Router<S>) -> #vs::axum::Router<S>
                where
                    S: ::core::clone::Clone + ::core::marker::Send + ::core::marker::Sync + 'static,
                    #vs::ServiceState: #vs::axum::extract::FromRef<S>,
                {
                    #[allow(unused_imports)]
                    use #vs::{ActionRoutes as _, NoActions as _};
                    (&#vs::Probe::<Self>::new()).register(router, &<Self as #vs::ViewSet>::prefix())
                }
                #policies
                fn decode_rows(
                    rows: &[#vs::QueryResult],
                ) -> ::core::result::Result<::std::vec::Vec<<#model as #vs::EntityTrait>::Model>, #vs::DbErr> {
                    #decode_rows(rows)
                }
                fn filter_queryset(
                    query: #vs::ListQuery<#model>,
                    request: &#vs::RequestContext,
                ) -> ::core::result::Result<#vs::ListQuery<#model>, #vs::ApiError> {
                    #(let query = #backends;)*
                    let _ = request;
                    ::core::result::Result::Ok(query)
                }
            }
            #hooks
            #field_checks
            #limit_check
            #(#reserved_checks)*
            #vs::inventory::submit! {
                #vs::ViewSetEntry {
                    name: #name,
                    module: ::core::module_path!(),
                    public: #public,
                    include: |api| api.include::<#hooks_ty>(),
                }
            }
        };
    }
}

/// The user's path at its own span, or the derived default.
fn spanned_or(written: &Option<syn::Path>, default: TokenStream) -> TokenStream {
    match written {
        Some(path) => quote_spanned!(path.span()=> #path),
        None => default,
    }
}

fn strs(list: &[LitStr]) -> TokenStream {
    quote!(&[#(#list),*])
}

fn config_const(config: &Config) -> TokenStream {
    let vs = private();
    let name = config.ident.to_string();
    let (prefix, model_name, tags, lookup) = (&config.prefix, &config.model_name, &config.tags, &config.lookup_field);
    let or_core = |value: Option<bool>, default: &str| match value {
        Some(v) => quote!(#v),
        None => {
            let default = syn::Ident::new(default, Span::call_site());
            quote!(#vs::Config::#default)
        }
    };
    let ai_exposed = or_core(config.ai_exposed, "DEFAULT_AI_EXPOSED");
    let stream_enabled = or_core(config.stream_enabled, "DEFAULT_STREAM_ENABLED");
    let require_if_match = or_core(config.require_if_match, "DEFAULT_REQUIRE_IF_MATCH");
    let default_limit = match &config.default_limit {
        DefaultLimit::Core => quote!(#vs::Config::DEFAULT_LIMIT),
        DefaultLimit::CoreWithin(max) => quote!(#vs::Config::default_limit_within(#max)),
        DefaultLimit::Checked(value) | DefaultLimit::AgainstCoreMax(value, _) => quote!(#value),
    };
    let max_limit = config.max_limit.map_or_else(|| quote!(#vs::Config::DEFAULT_MAX_LIMIT), |m| quote!(#m));
    let filterable = strs(&config.filterable_fields);
    let search = strs(&config.search_fields);
    let ordering_fields = match &config.ordering_fields {
        Some(list) => {
            let list = strs(list);
            quote!(#vs::OrderingFields::Only(#list))
        }
        None => quote!(#vs::OrderingFields::All),
    };
    let tenant_field = option(config.tenant_field.as_ref().map(|lit| quote!(#lit)));
    let staff_only = strs(&config.staff_only_fields);
    let backend_names = &config.backend_names;
    let count_mode = match &config.count_mode {
        Some(variant) => quote!(#vs::CountMode::#variant),
        None => quote!(#vs::Config::DEFAULT_COUNT_MODE),
    };
    let expandable =
        config.expandable.iter().map(|name| expandable_entry(&config.model, name, &config.relation_entities));
    let related = super::related::entries(&config.model, &config.related);
    let fulltext = super::fulltext::entry(&config.fulltext);
    let custom_hooks = config.custom_hooks.is_some();
    let save_hooks = config.save_hooks;
    let csv_keep_formulas = config.csv_keep_formulas;
    let throttle = &config.throttle;
    let bulk = &config.bulk;
    let aggregates = &config.aggregates;
    let nested = &config.nested;
    let basename = config.basename.as_deref().unwrap_or_default();
    let ordering = config.ordering.iter().map(|(field, desc)| {
        let direction = if *desc { quote!(Desc) } else { quote!(Asc) };
        quote!((#field, #vs::Direction::#direction))
    });
    quote! {
        #vs::Config {
            name: #name,
            model_name: #model_name,
            prefix: #prefix,
            tags: &[#(#tags),*],
            lookup_field: #lookup,
            ai_exposed: #ai_exposed,
            stream_enabled: #stream_enabled,
            require_if_match: #require_if_match,
            default_limit: #default_limit,
            max_limit: #max_limit,
            filterable_fields: #filterable,
            search_fields: #search,
            ordering_fields: #ordering_fields,
            ordering: &[#(#ordering),*],
            tenant_field: #tenant_field,
            staff_only_fields: #staff_only,
            filter_backends: &[#(#backend_names),*],
            count_mode: #count_mode,
            expandable: &[#(#expandable),*],
            related_fields: #related,
            fulltext: #fulltext,
            custom_hooks: #custom_hooks,
            save_hooks: #save_hooks,
            basename: #basename,
            csv_keep_formulas: #csv_keep_formulas,
            throttle: #throttle,
            bulk: #bulk,
            aggregates: #aggregates,
            nested: #nested,
            module: ::core::module_path!(),
        }
    }
}

/// One `expandable` entry: the relation is `<model's module>::Relation::<CamelCase name>`, spelled at the user's
/// literal, so a name that is no relation of the model is rustc's "no variant" error there.
/// A name declared in `relations(name = entity)` follows the model's `Related<entity>` impl instead: `to` and `via`
/// (a many-to-many relation through its join table).
fn expandable_entry(model: &syn::Path, name: &LitStr, declared: &[(String, syn::Path)]) -> TokenStream {
    let vs = private();
    if let Some((_, entity)) = declared.iter().find(|(declared, _)| *declared == name.value()) {
        let to = respan(quote!(<#model as #vs::Related<#entity>>::to), name.span());
        let via = respan(quote!(<#model as #vs::Related<#entity>>::via), name.span());
        return quote! { #vs::Expandable { name: #name, relation: #to, via: #via } };
    }
    let relation = relation_path(model, name);
    quote! {
        #vs::Expandable { name: #name, relation: || #vs::RelationTrait::def(&#relation), via: || None }
    }
}

/// `<model's module>::Relation::<CamelCase name>` at the span of `name`.
fn relation_path(model: &syn::Path, name: &LitStr) -> TokenStream {
    let camel: String = name
        .value()
        .split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| first.to_ascii_uppercase().to_string() + chars.as_str())
        })
        .collect();
    let variant = syn::Ident::new(&camel, name.span());
    let mut module = model.clone();
    module.segments.pop();
    if module.segments.is_empty() {
        quote_spanned!(name.span()=> Relation::#variant)
    } else {
        let module = module.segments.pairs().map(|pair| pair.value().ident.clone());
        let leading = model.leading_colon;
        quote_spanned!(name.span()=> #leading #(#module)::* ::Relation::#variant)
    }
}

/// A `default_limit` written without `max_limit` is checked against core's default `max_limit` where that is
/// known: at compile time of the generated code, reported at the user's literal.
fn limit_check(limit: &DefaultLimit) -> TokenStream {
    let DefaultLimit::AgainstCoreMax(value, span) = limit else { return quote!() };
    let vs = private();
    let message = format!(
        "`default_limit` ({value}) is above `max_limit`, whose default is `viewset_core::Config::DEFAULT_MAX_LIMIT`: \
         write a `max_limit` at least as large, or lower `default_limit`"
    );
    quote_spanned! {*span=>
        const _: () = ::core::assert!(#value <= #vs::Config::DEFAULT_MAX_LIMIT, #message);
    }
}

/// A `filterable_fields` entry must not be a reserved query name (`viewset_core::query::RESERVED_QUERY_NAMES`,
/// the one list): checked by core's `const fn` at compile time of the generated code, reported at the literal.
fn reserved_check(field: &LitStr) -> TokenStream {
    let vs = private();
    let name = field.value();
    let message = format!(
        "`{name}` is a reserved query parameter name (`viewset_core::query::RESERVED_QUERY_NAMES`: paging, search, \
         ordering and other framework parameters use it), so a field named `{name}` cannot be filtered: remove it \
         from `filterable_fields`, or rename the field"
    );
    quote_spanned! {field.span()=>
        const _: () = ::core::assert!(!#vs::is_reserved_query_name(#field), #message);
    }
}

fn backend_calls(backends: &[Expr]) -> Vec<TokenStream> {
    let vs = private();
    backends
        .iter()
        .map(|b| quote_spanned!(b.span()=> <#b as #vs::FilterBackend>::filter_queryset::<Self>(query, request)?))
        .collect()
}

/// A never-called function checking each allowlist name at the user's literal: a constant that is a compile error
/// naming the model's fields and the closest one when the name is not a field (`schema::names::known_field`), and
/// for `search_fields` the field's type (text only), asked only of names that exist. The `lookup_field` gets the
/// same check through the [`LOOKUP_ALIAS`] gate, which the function names so that it is checked in a build with
/// other attribute errors too (where no `impl ViewSet` is emitted).
pub fn field_checks(fields: &FieldChecks) -> TokenStream {
    let vs = private();
    let model = &fields.model;
    let model_name = quote!(#model).to_string().replace(' ', "");
    let model_ty = quote!(<#model as #vs::EntityTrait>::Model);
    // The fields are asked of `ModelSchema` at the model's token (see `expand`), the name at its literal.
    let fields_of = respan(quote!(<#model_ty as #vs::ModelSchema>::FIELDS), model.span());
    let known = |lit: &LitStr| {
        let (call, name) = (respan(quote!(#vs::known_field), lit.span()), respan(quote!(#model_name), lit.span()));
        quote_spanned!(lit.span()=> #call(#fields_of, #lit, #name))
    };
    let plain = fields.plain.iter().map(|lit| {
        let known = known(lit);
        quote_spanned!(lit.span()=> const _: bool = #known;)
    });
    // Spelt at the literal, but for the model's type and the name's check: a missing `ModelSchema` stays at the
    // model's token (see `expand`).
    let typed = |lit: &LitStr, assert: &str| {
        let (at, known) = (lit.span(), known(lit));
        let (vs_at, hash) = (respan(vs.clone(), at), respan(quote!(#vs::name_hash(#lit)), at));
        let assert = syn::Ident::new(assert, at);
        quote_spanned!(at=> #vs_at::#assert::<<#vs_at::Gate<#model_ty, { #hash }, { #known }> as #vs_at::Resolved>::Type>();)
    };
    let text = fields.text.iter().map(|lit| typed(lit, "assert_text_type"));
    let numeric = fields.numeric.iter().map(|lit| typed(lit, "assert_numeric_type"));
    let ordered = fields.ordered.iter().map(|lit| typed(lit, "assert_ordered_type"));
    let unique = fields.unique.iter().map(|lit| {
        let (call, name) = (respan(quote!(#vs::unique_field), lit.span()), respan(quote!(#model_name), lit.span()));
        quote_spanned!(lit.span()=> const _: bool = #call(#fields_of, #lit, #name);)
    });
    let not_allowed = fields.ordering_not_allowed.iter().map(|(lit, message)| {
        let known = known(lit);
        quote_spanned!(lit.span()=> const _: () = if #known { panic!("{}", #message) };)
    });
    let relations = fields.relations.iter().map(|lit| {
        let relation = relation_path(&fields.model, lit);
        quote!(let _ = #relation;)
    });
    let related = super::related::checks(&fields.model, &fields.related, fields.related_links);
    let all_warning = fields.all_fields_literal.as_ref().map(|lit| {
        let span = lit.span();
        let name = syn::Ident::new("ordering_fields_all", span);
        quote_spanned! {span=>
            #[deprecated(note = "`ordering_fields = \"__all__\"` lets clients order by every column; list the fields clients need instead")]
            #[allow(non_upper_case_globals)]
            const #name: () = ();
            #[allow(clippy::let_unit_value)]
            let _ = #name;
        }
    });
    let (lookup_alias, lookup_use) = match &fields.lookup {
        Some(lit) => {
            let alias = syn::Ident::new(LOOKUP_ALIAS, Span::call_site());
            let (hash, known) = (respan(quote!(#vs::name_hash(#lit)), lit.span()), known(lit));
            let alias_item = quote! {
                #[allow(dead_code)]
                type #alias = #vs::Gate<#model_ty, { #hash }, { #known }>;
            };
            (alias_item, quote!(let _ = <#alias as #vs::Resolved>::get;))
        }
        None => (quote!(), quote!()),
    };
    let check_fn = syn::Ident::new("__viewset_field_checks", Span::call_site());
    quote! {
        #lookup_alias
        #[allow(dead_code, unused_variables, clippy::no_effect_underscore_binding)]
        fn #check_fn() {
            let _ = ::core::marker::PhantomData::<#model_ty>;
            #lookup_use
            #(#plain)*
            #(#unique)*
            #(#not_allowed)*
            #(#text)*
            #(#numeric)*
            #(#ordered)*
            #(#relations)*
            #related
            #all_warning
        }
    }
}
