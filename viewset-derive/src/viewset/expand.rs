//! Code generation for a checked ViewSet: one `impl ViewSet` of constants and thin calls into `viewset_core`,
//! the default `impl Hooks`, and never-called functions whose only job is to make rustc check field names and
//! types at the user's tokens.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, LitStr};

use super::check::Config;

pub fn expand(config: &Config) -> TokenStream {
    let attrs = &config.attrs;
    let ident = &attrs.ident;
    let model = &config.model;
    let vs = quote!(::viewset_core::__private);
    let model_ty = quote!(<#model as #vs::EntityTrait>::Model);

    let create = body_type(
        &attrs.create_serializer_class,
        &attrs.create_schema_class,
        quote!(<#model_ty as ::viewset_core::ModelSchema>::Create),
    );
    let update = body_type(
        &attrs.update_serializer_class,
        &attrs.update_schema_class,
        quote!(<#model_ty as ::viewset_core::ModelSchema>::Update),
    );
    let read_default = attrs.read_schema_class.as_ref().map_or_else(|| model_ty.clone(), |p| quote!(#p));
    let list_item = attrs.list_serializer_class.as_ref().map_or_else(|| read_default.clone(), |p| quote!(#p));
    let detail = attrs.retrieve_serializer_class.as_ref().map_or_else(|| read_default.clone(), |p| quote!(#p));
    let pagination = attrs
        .pagination_class
        .as_ref()
        .map_or_else(|| quote!(::viewset_core::LimitOffsetPagination), |p| quote_spanned!(p.span()=> #p));

    let config_const = config_const(config);
    let name = ident.to_string();
    let public = matches!(attrs.vis, syn::Visibility::Public(_));
    let read_schema = |custom: &Option<syn::Path>| match custom.as_ref().or(attrs.read_schema_class.as_ref()) {
        Some(_) => quote!(::viewset_core::free_form_schema()),
        None => quote!(<#model_ty as ::viewset_core::ModelSchema>::read_schema()),
    };
    let list_schema = read_schema(&attrs.list_serializer_class);
    let detail_schema = read_schema(&attrs.retrieve_serializer_class);
    let lookup = field_ident(&config.lookup_field);
    let permissions = visits(&attrs.permission_classes.0);
    let policies = visits(&attrs.policy.0);
    let backends = backend_calls(&attrs.filter_backends.0);
    let field_checks = field_checks(config, &model_ty, &vs);
    // With `custom_hooks` the application writes `impl Hooks`; the discovery entry below needs it, and names the
    // type with the flag's span so that a missing impl is reported once, at the flag.
    let (hooks, hooks_ty) = if attrs.custom_hooks.is_present() {
        (quote!(), syn::Ident::new(&ident.to_string(), attrs.custom_hooks.span()))
    } else {
        (quote!(#[diagnostic::do_not_recommend] impl ::viewset_core::Hooks for #ident {}), ident.clone())
    };
    quote! {
        const _: () = {
            impl ::viewset_core::ViewSet for #ident {
                type Entity = #model;
                type Create = #create;
                type Update = #update;
                type ListItem = #list_item;
                type Detail = #detail;
                type Pagination = #pagination;
                const CONFIG: ::viewset_core::Config = #config_const;

                fn lookup_schema() -> #vs::utoipa::openapi::RefOr<#vs::utoipa::openapi::schema::Schema> {
                    #vs::schema_of(|m: &#model_ty| &m.#lookup)
                }
                fn list_item_schema() -> #vs::utoipa::openapi::RefOr<#vs::utoipa::openapi::schema::Schema> {
                    #list_schema
                }
                fn detail_schema() -> #vs::utoipa::openapi::RefOr<#vs::utoipa::openapi::schema::Schema> {
                    #detail_schema
                }
                fn actions() -> ::std::vec::Vec<::viewset_core::ActionInfo> {
                    #[allow(unused_imports)]
                    use ::viewset_core::__private::{ActionRoutes as _, NoActions as _};
                    (&::viewset_core::__private::Probe::<Self>::new()).describe()
                }
                fn lookup_value(raw: &str) -> ::core::result::Result<#vs::Value, ::viewset_core::ApiError> {
                    #vs::parse_lookup(raw, |m: &#model_ty| &m.#lookup)
                }
                fn permission_classes(
                    visit: &mut dyn ::core::ops::FnMut(&dyn ::viewset_core::Permission) -> ::core::result::Result<(), ::viewset_core::ApiError>,
                ) -> ::core::result::Result<(), ::viewset_core::ApiError> {
                    #(#permissions)*
                    let _ = &visit;
                    ::core::result::Result::Ok(())
                }
                fn register_actions<S>(router: ::viewset_core::__private::axum::Router<S>) -> ::viewset_core::__private::axum::Router<S>
                where
                    S: ::core::clone::Clone + ::core::marker::Send + ::core::marker::Sync + 'static,
                    ::viewset_core::ServiceState: ::viewset_core::__private::axum::extract::FromRef<S>,
                {
                    #[allow(unused_imports)]
                    use ::viewset_core::__private::{ActionRoutes as _, NoActions as _};
                    (&::viewset_core::__private::Probe::<Self>::new()).register(router, &<Self as ::viewset_core::ViewSet>::prefix())
                }
                fn row_policies(
                    visit: &mut dyn ::core::ops::FnMut(&dyn ::viewset_core::RowPolicy) -> ::core::result::Result<(), ::viewset_core::ApiError>,
                ) -> ::core::result::Result<(), ::viewset_core::ApiError> {
                    #(#policies)*
                    let _ = &visit;
                    ::core::result::Result::Ok(())
                }
                fn filter_queryset(
                    query: ::viewset_core::ListQuery<#model>,
                    request: &::viewset_core::RequestContext,
                ) -> ::core::result::Result<::viewset_core::ListQuery<#model>, ::viewset_core::ApiError> {
                    #(let query = #backends;)*
                    let _ = request;
                    ::core::result::Result::Ok(query)
                }
            }
            #hooks
            #field_checks
            #vs::inventory::submit! {
                ::viewset_core::ViewSetEntry {
                    name: #name,
                    module: ::core::module_path!(),
                    public: #public,
                    include: |api| api.include::<#hooks_ty>(),
                }
            }
        };
    }
}

fn body_type(serializer: &Option<syn::Path>, schema: &Option<syn::Path>, derived: TokenStream) -> TokenStream {
    match serializer.as_ref().or(schema.as_ref()) {
        Some(path) => quote_spanned!(path.span()=> #path),
        None => derived,
    }
}

fn strs(list: &[LitStr]) -> TokenStream {
    quote!(&[#(#list),*])
}

fn config_const(config: &Config) -> TokenStream {
    let attrs = &config.attrs;
    let name = attrs.ident.to_string();
    let prefix = &config.prefix;
    let model_name = &config.model_name;
    let tags = &config.tags;
    let lookup = &config.lookup_field;
    let ai_exposed = attrs.ai_exposed.unwrap_or(true);
    let stream_enabled = attrs.stream_enabled.unwrap_or(true);
    let default_limit = config.default_limit;
    let max_limit = config.max_limit;
    let filterable = strs(&attrs.filterable_fields.0);
    let search = strs(&attrs.search_fields.0);
    let ordering_fields = match &config.ordering_fields {
        Some(list) => {
            let list = strs(list);
            quote!(::viewset_core::OrderingFields::Only(#list))
        }
        None => quote!(::viewset_core::OrderingFields::All),
    };
    let tenant_field = match &attrs.tenant_field {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => quote!(::core::option::Option::None),
    };
    let staff_only = strs(&attrs.staff_only_fields.0);
    let backend_names = attrs.filter_backends.0.iter().filter_map(|b| match b {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    });
    let ordering = config.ordering.iter().map(|(field, desc)| {
        let direction = if *desc { quote!(Desc) } else { quote!(Asc) };
        quote!((#field, ::viewset_core::Direction::#direction))
    });
    quote! {
        ::viewset_core::Config {
            name: #name,
            model_name: #model_name,
            prefix: #prefix,
            tags: &[#(#tags),*],
            lookup_field: #lookup,
            ai_exposed: #ai_exposed,
            stream_enabled: #stream_enabled,
            default_limit: #default_limit,
            max_limit: #max_limit,
            filterable_fields: #filterable,
            search_fields: #search,
            ordering_fields: #ordering_fields,
            ordering: &[#(#ordering),*],
            tenant_field: #tenant_field,
            staff_only_fields: #staff_only,
            filter_backends: &[#(#backend_names),*],
            module: ::core::module_path!(),
        }
    }
}

/// Each permission or policy is named once, as a trait object, so a value of the wrong kind fails once, at its token.
fn visits(values: &[Expr]) -> Vec<TokenStream> {
    values.iter().map(|p| quote_spanned!(p.span()=> visit(&#p)?;)).collect()
}

fn backend_calls(backends: &[Expr]) -> Vec<TokenStream> {
    backends
        .iter()
        .map(|b| quote_spanned!(b.span()=> <#b as ::viewset_core::FilterBackend>::filter_queryset::<Self>(query, request)?))
        .collect()
}

/// The field named by a string literal, as an identifier carrying the literal's span, so that rustc's
/// "no field `titel` on type `Model`" points at the user's literal.
fn field_ident(lit: &LitStr) -> syn::Ident {
    syn::Ident::new(&lit.value(), lit.span())
}

fn field_checks(config: &Config, model_ty: &TokenStream, vs: &TokenStream) -> TokenStream {
    let attrs = &config.attrs;
    let plain = attrs
        .filterable_fields
        .0
        .iter()
        .chain(config.ordering_fields.iter().flatten())
        .chain(config.ordering.iter().map(|(field, _)| field))
        .chain(&attrs.staff_only_fields.0)
        .chain(&attrs.tenant_field)
        .map(|lit| {
            let field = field_ident(lit);
            quote_spanned!(lit.span()=> let _ = &m.#field;)
        });
    let text = attrs.search_fields.0.iter().map(|lit| {
        let field = field_ident(lit);
        quote_spanned!(lit.span()=> #vs::assert_text_field(&m.#field);)
    });
    let all_warning = config.all_fields_literal.as_ref().map(|lit| {
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
    let check_fn = syn::Ident::new("__viewset_field_checks", Span::call_site());
    quote! {
        #[allow(dead_code, unused_variables, clippy::no_effect_underscore_binding)]
        fn #check_fn(m: &#model_ty) {
            #(#plain)*
            #(#text)*
            #all_warning
        }
    }
}
