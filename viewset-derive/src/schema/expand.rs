//! Emits `<Model>Create` and `<Model>Patch` and the `ModelSchema` impl tying them to the model.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::check::{Field, Model};
use crate::tokens::{option, private};

/// `<Model>Create`, `<Model>Patch` and the schema impls of a checked model.
pub fn expand(model: &Model) -> TokenStream {
    let vs = private();
    let ident = &model.ident;
    let create = format_ident!("{}Create", ident);
    let patch = format_ident!("{}Patch", ident);
    let active = quote!(<<#ident as #vs::ModelTrait>::Entity as #vs::EntityTrait>::ActiveModel);

    let create_fields = model.fields.iter().filter(|f| f.writable_on_create()).map(|f| {
        let name = &f.ident;
        let inner = &f.inner;
        if f.required_on_create() {
            quote!(pub #name: #inner,)
        } else {
            quote!(#[serde(default)] pub #name: #vs::Patch<#inner>,)
        }
    });
    let create_validate = validate_fn(
        model.fields.iter().filter(|f| f.writable_on_create()).map(|f| validate(f, f.required_on_create())),
    );
    let create_assign = model.fields.iter().filter(|f| f.writable_on_create()).map(|f| {
        let name = &f.ident;
        if f.required_on_create() { quote!(am.#name = #vs::Set(self.#name);) } else { assign_patch(f, &vs) }
    });

    let patch_fields = model.fields.iter().filter(|f| f.writable_on_update()).map(|f| {
        let name = &f.ident;
        let inner = &f.inner;
        quote!(#[serde(default)] pub #name: #vs::Patch<#inner>,)
    });
    let patch_validate =
        validate_fn(model.fields.iter().filter(|f| f.writable_on_update()).map(|f| validate(f, false)));
    let patch_assign = model.fields.iter().filter(|f| f.writable_on_update()).map(|f| assign_patch(f, &vs));
    let patch_is_empty = model.fields.iter().filter(|f| f.writable_on_update()).map(|f| {
        let name = &f.ident;
        quote!(self.#name.is_missing())
    });

    let infos = model.fields.iter().map(|f| {
        let name = f.ident.to_string();
        let (nullable, pk, ro) = (f.nullable, f.primary_key, !f.writable_on_create() && !f.writable_on_update());
        let required = f.required_on_create();
        let (max, unique) = (option(f.max_length.map(|n| quote!(#n))), f.unique || f.primary_key);
        quote!(#vs::FieldInfo { name: #name, nullable: #nullable, primary_key: #pk, read_only: #ro, required_on_create: #required, max_length: #max, unique: #unique })
    });

    // Each field by the hash of its name: the ViewSet derive checks allowlist names against `FIELDS`, then types
    // (`search_fields` are text) and the `lookup_field` through these.
    let field_types = model.fields.iter().map(|f| {
        let name = f.ident.to_string();
        let (field, inner) = (&f.ident, &f.inner);
        let value = if f.nullable { quote!(::core::option::Option<#inner>) } else { quote!(#inner) };
        quote! {
            impl #vs::FieldAt<{ #vs::name_hash(#name) }> for #ident {
                type Type = #inner;
                type Value = #value;
                fn get(model: &Self) -> &#value {
                    &model.#field
                }
            }
        }
    });

    let read_schema = object_schema(model.fields.iter().map(|f| (f, true, false)), &vs);
    let create_schema = object_schema(
        model.fields.iter().filter(|f| f.writable_on_create()).map(|f| (f, f.required_on_create(), true)),
        &vs,
    );
    let update_schema =
        object_schema(model.fields.iter().filter(|f| f.writable_on_update()).map(|f| (f, false, true)), &vs);

    // By position: sea-orm's `Column` has a variant per field that is not ignored, in declaration order, and
    // `Entity::find()` selects them in that order (checked against the row's column names before this is used).
    // An `Option<T>` field checks the driver's row for `NULL` first (`viewset_core::schema::rows::nullable`); other types as sea-orm decodes them.
    let in_order = model.fields.iter().enumerate().map(|(index, f)| {
        let (field, ty) = (&f.ident, &f.ty);
        match super::attrs::option_inner(ty) {
            Some(inner) => quote!(#field: #vs::nullable::<#inner>(row, #index)?,),
            None => quote!(#field: row.try_get_by_index::<#ty>(#index)?,),
        }
    });
    let ignored = model.ignored.iter().map(|field| quote!(#field: ::core::default::Default::default(),));

    let create_doc = format!("Body of a create request for [`{ident}`], derived by `ModelSchema`.");
    let patch_doc = format!("Body of a PATCH request for [`{ident}`]: every field optional, derived by `ModelSchema`.");
    quote! {
        #[doc = #create_doc]
        #[derive(::core::fmt::Debug, #vs::serde::Deserialize)]
        #[serde(crate = "::viewset_core::__private::serde", deny_unknown_fields)]
        pub struct #create { #(#create_fields)* }

        #[doc = #patch_doc]
        #[derive(::core::fmt::Debug, ::core::default::Default, #vs::serde::Deserialize)]
        #[serde(crate = "::viewset_core::__private::serde", deny_unknown_fields)]
        pub struct #patch { #(#patch_fields)* }

        #(#field_types)*

        impl #vs::ModelSchema for #ident {
            type Create = #create;
            type Update = #patch;
            const FIELDS: &'static [#vs::FieldInfo] = &[#(#infos),*];
            fn read_schema() -> #vs::utoipa::openapi::RefOr<#vs::utoipa::openapi::schema::Schema> {
                #read_schema
            }
            fn from_row_in_order(
                row: &#vs::QueryResult,
            ) -> ::core::option::Option<::core::result::Result<Self, #vs::DbErr>> {
                let decode = || ::core::result::Result::Ok(Self { #(#in_order)* #(#ignored)* });
                ::core::option::Option::Some(decode())
            }
        }

        impl #vs::CreateSchema<<#ident as #vs::ModelTrait>::Entity> for #create {
            #create_validate
            fn openapi_schema() -> #vs::utoipa::openapi::RefOr<#vs::utoipa::openapi::schema::Schema> {
                #create_schema
            }
            fn into_active_model(self) -> #active {
                let mut am = <#active as #vs::ActiveModelTrait>::default();
                #(#create_assign)*
                am
            }
        }

        impl #vs::UpdateSchema<<#ident as #vs::ModelTrait>::Entity> for #patch {
            #patch_validate
            fn openapi_schema() -> #vs::utoipa::openapi::RefOr<#vs::utoipa::openapi::schema::Schema> {
                #update_schema
            }
            fn is_empty(&self) -> bool {
                true #(&& #patch_is_empty)*
            }
            fn apply(self, am: &mut #active) {
                #(#patch_assign)*
            }
        }
    }
}

/// The `validate` method of a body type: every field's checks, all errors collected.
fn validate_fn(checks: impl Iterator<Item = TokenStream>) -> TokenStream {
    let vs = private();
    quote! {
        fn validate(&self) -> ::core::result::Result<(), #vs::FieldErrors> {
            let mut errors = #vs::FieldErrors::default();
            #(#checks)*
            errors.into_result()
        }
    }
}

/// Validation of one field: `null` on a non-nullable column, then length.
fn validate(f: &Field, required: bool) -> TokenStream {
    let name = &f.ident;
    let label = name.to_string();
    let null_check =
        if required || f.nullable { quote!() } else { quote!(if self.#name.is_null() { errors.not_null(#label); }) };
    let length_check = f.max_length.map(|max| {
        let value =
            if required { quote!(::core::option::Option::Some(&self.#name)) } else { quote!(self.#name.value()) };
        quote!(if let ::core::option::Option::Some(v) = #value { errors.max_length(#label, v, #max); })
    });
    // serde reads a JSON number beyond an `f32`'s range as infinity: refuse it like any other invalid value.
    let finite_check = f.is_f32().then(|| {
        let value =
            if required { quote!(::core::option::Option::Some(&self.#name)) } else { quote!(self.#name.value()) };
        quote!(if let ::core::option::Option::Some(v) = #value { errors.finite(#label, *v); })
    });
    quote!(#null_check #length_check #finite_check)
}

fn assign_patch(f: &Field, vs: &TokenStream) -> TokenStream {
    let name = &f.ident;
    if f.nullable {
        quote! {
            match self.#name {
                #vs::Patch::Value(v) => am.#name = #vs::Set(::core::option::Option::Some(v)),
                #vs::Patch::Null => am.#name = #vs::Set(::core::option::Option::None),
                #vs::Patch::Missing => {}
            }
        }
    } else {
        quote! {
            if let #vs::Patch::Value(v) = self.#name { am.#name = #vs::Set(v); }
        }
    }
}

/// An object schema: `(field, required, for_input)` per property. Input schemas carry `maxLength`.
fn object_schema<'a>(fields: impl Iterator<Item = (&'a Field, bool, bool)>, vs: &TokenStream) -> TokenStream {
    let props = fields.map(|(f, required, input)| {
        let name = f.ident.to_string();
        let inner = &f.inner;
        let mut schema = quote!(<#inner as #vs::FieldSchema>::field_schema());
        if input && let Some(max) = f.max_length {
            schema = quote!(#vs::utoipa::openapi::schema::ObjectBuilder::new()
                .schema_type(#vs::utoipa::openapi::schema::Type::String)
                .max_length(::core::option::Option::Some(#max)));
        }
        if f.nullable {
            schema = quote!(#vs::utoipa::openapi::schema::OneOfBuilder::new()
                .item(#vs::utoipa::openapi::schema::ObjectBuilder::new().schema_type(#vs::utoipa::openapi::schema::Type::Null))
                .item(#schema));
        }
        let required = required.then(|| quote!(.required(#name)));
        quote!(.property(#name, #schema) #required)
    });
    quote!(#vs::utoipa::openapi::schema::ObjectBuilder::new() #(#props)* .into())
}
