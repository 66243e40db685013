//! Semantic checks of a ViewSet's attributes, and the resolution of every value (as written, or core's default).
//! Every mistake is collected with the span of the offending token; checks that need the model's fields are
//! emitted as code (see `expand::field_checks`), since a derive cannot see another item's fields.

use darling::util::SpannedValue;
use syn::spanned::Spanned;
use syn::{Expr, LitStr};

use super::attrs::ViewSetAttrs;
use super::config::{Bodies, Config, DefaultLimit, FieldChecks};
use crate::names::{
    ALL_FIELDS, CURSOR_PAGINATION, DEFAULT_LOOKUP_FIELD, FULLTEXT_FILTER, ORDERING_FILTER, SEARCH_FILTER,
    SERVICE_FILTER,
};

/// Checks the parsed attributes, recording every mistake in `parent`. On a mistake, returns the field names that
/// are still worth checking (when the model is known), so that rustc's field errors show in the same build.
pub fn check(
    attrs: ViewSetAttrs,
    parent: &mut darling::error::Accumulator,
) -> Result<Config, Option<Box<FieldChecks>>> {
    let mut errors = darling::Error::accumulator();
    if attrs.model.is_none() {
        errors.push(
            darling::Error::custom(
                "missing `model`: name the sea-orm entity this ViewSet serves, e.g. `#[viewset(model = post::Entity)]`",
            )
            .with_span(&attrs.ident),
        );
    }
    if !attrs.generics.params.is_empty() {
        errors.push(
            darling::Error::custom("a ViewSet cannot be generic: derive `ModelViewSet` on a plain unit struct")
                .with_span(&attrs.generics),
        );
    }
    let prefix = super::routes::check_prefix(&attrs, &mut errors);
    let basename = super::routes::check_basename(&attrs, &mut errors);
    let (default_limit, max_limit) = check_limits(attrs.default_limit, attrs.max_limit, &mut errors);

    // The default lookup field is checked like a written one; a model without it is reported at `model`.
    let default_span = attrs.model.as_ref().map_or(attrs.ident.span(), |m| m.span());
    let lookup_field = attrs.lookup_field.clone().unwrap_or_else(|| LitStr::new(DEFAULT_LOOKUP_FIELD, default_span));
    let lookup_valid = check_field_name(&lookup_field, &mut errors);
    let filterable_fields = valid_names(&attrs.filterable_fields.0, &mut errors);
    let staff_only_fields = valid_names(&attrs.staff_only_fields.0, &mut errors);
    let tenant_field = valid_names(attrs.tenant_field.as_slice(), &mut errors).pop();
    let search_fields = valid_names(&attrs.search_fields.0, &mut errors);
    let search_fields = search_fields.into_iter().filter(|name| {
        let relation = name.value().contains("__");
        if relation {
            errors.push(
                darling::Error::custom(
                    "relation paths are not supported in `search_fields`: name a text column of this model",
                )
                .with_span(name),
            );
        }
        !relation
    });
    let search_fields: Vec<LitStr> = search_fields.collect();

    let mut all_fields_literal = attrs.ordering_fields.0.iter().find(|l| l.value() == ALL_FIELDS).cloned();
    let ordering_fields = match &all_fields_literal {
        Some(lit) if attrs.ordering_fields.0.len() > 1 => {
            errors.push(darling::Error::custom("`\"__all__\"` cannot be combined with field names").with_span(lit));
            all_fields_literal = None; // the error says it; no warning on top
            None
        }
        Some(_) => None,
        None => Some(valid_names(&attrs.ordering_fields.0, &mut errors)),
    };
    let (ordering, ordering_not_allowed) = check_ordering(&attrs, ordering_fields.as_deref(), &mut errors);
    let count_mode = check_count_mode(&attrs, &mut errors);
    let expandable = super::related::check_expandable(&attrs, &mut errors);
    let nested = super::nested::NestedAttr {
        writable: &attrs.writable_relations.0,
        max_depth: attrs.max_nested_depth,
        max_rows: attrs.max_nested_rows,
    };
    let nested = super::nested::entry(nested, &expandable, &mut errors);
    let allowlists = filterable_fields.iter().chain(ordering_fields.iter().flatten());
    let related = super::related::resolve(allowlists, &attrs.relations, &mut errors);
    let fulltext = super::fulltext::check(&attrs.fulltext, check_field_name, &mut errors);
    check_backends(&attrs, &mut errors);
    check_tenant_field(&attrs, &mut errors);
    check_schema_pairs(&attrs, &mut errors);
    let throttle = crate::throttle::entry(&attrs.throttle, &mut errors);
    let upsert_keys = valid_names(&attrs.upsert_keys.0, &mut errors);
    let bulk = super::bulk::entry(&attrs.bulk, attrs.max_bulk, attrs.require_if_match, &upsert_keys, &mut errors);
    let aggregates =
        super::aggregates::check(&attrs.aggregates, attrs.tenant_field.as_ref(), check_field_name, &mut errors);

    let failed = parent.handle(errors.finish()).is_none();
    let Some(model) = attrs.model.clone() else { return Err(None) };
    let plain = filterable_fields.iter().chain(ordering_fields.iter().flatten());
    let plain = plain.chain(ordering.iter().map(|(field, _)| field)).chain(&staff_only_fields).chain(&tenant_field);
    let plain = plain.chain(aggregates.iter().flat_map(|a| a.plain()));
    let plain = plain.filter(|name| !name.value().contains("__")); // related paths: checked through their relation
    let fields = FieldChecks {
        model: model.clone(),
        plain: plain.cloned().collect(),
        text: search_fields.iter().chain(fulltext.iter().flat_map(|f| &f.fields)).cloned().collect(),
        lookup: lookup_valid.then(|| lookup_field.clone()),
        relations: if failed { super::related::variant_names(&expandable, &attrs.relations) } else { Vec::new() },
        related: related.clone(),
        related_links: failed,
        all_fields_literal,
        ordering_not_allowed,
        unique: upsert_keys,
        numeric: aggregates.iter().flat_map(|a| a.numeric()).cloned().collect(),
        ordered: aggregates.iter().flat_map(|a| a.ordered()).cloned().collect(),
    };
    if failed {
        return Err(Some(Box::new(fields)));
    }
    let model_name = model_name(&model);
    let read = attrs.read_schema_class.clone();
    Ok(Config {
        public: matches!(attrs.vis, syn::Visibility::Public(_)),
        tags: match &attrs.tags {
            Some(list) => list.0.iter().map(LitStr::value).collect(),
            None => vec![model_name.clone()],
        },
        model_name,
        model,
        prefix,
        basename,
        lookup_field,
        ai_exposed: attrs.ai_exposed,
        stream_enabled: attrs.stream_enabled,
        require_if_match: attrs.require_if_match,
        default_limit,
        max_limit,
        backend_names: attrs.filter_backends.0.iter().filter_map(last_segment).collect(),
        filter_backends: attrs.filter_backends.0,
        permissions: attrs.permission_classes.0,
        policies: attrs.policy.0,
        filterable_fields,
        search_fields,
        ordering_fields,
        ordering,
        tenant_field,
        staff_only_fields,
        count_mode,
        expandable,
        relation_entities: attrs
            .relations
            .entries
            .iter()
            .map(|(name, entity)| (name.to_string(), entity.clone()))
            .collect(),
        related,
        fulltext,
        pagination: attrs.pagination_class,
        bodies: Bodies {
            create: attrs.create_serializer_class.or(attrs.create_schema_class),
            update: attrs.update_serializer_class.or(attrs.update_schema_class),
            list_item: attrs.list_serializer_class.or_else(|| read.clone()),
            detail: attrs.retrieve_serializer_class.or(read),
        },
        custom_hooks: attrs.custom_hooks.is_present().then(|| attrs.custom_hooks.span()),
        save_hooks: attrs.save_hooks.is_present(),
        csv_keep_formulas: attrs.csv_keep_formulas.is_present(),
        throttle,
        bulk,
        aggregates: super::aggregates::entry(&aggregates),
        nested,
        fields,
        ident: attrs.ident,
    })
}

/// The names of `list` that are field names; the others are reported.
fn valid_names(list: &[LitStr], errors: &mut darling::error::Accumulator) -> Vec<LitStr> {
    list.iter().filter(|name| check_field_name(name, errors)).cloned().collect()
}

/// The last path segment of a type named as an expression (`SearchFilter` in `[SearchFilter]`).
fn last_segment(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn check_limits(
    default: Option<SpannedValue<u64>>,
    max: Option<SpannedValue<u64>>,
    errors: &mut darling::error::Accumulator,
) -> (DefaultLimit, Option<u64>) {
    if let Some(m) = &max
        && **m == 0
    {
        errors.push(darling::Error::custom("`max_limit` must be at least 1").with_span(&m.span()));
    }
    if let Some(d) = &default
        && **d == 0
    {
        errors.push(darling::Error::custom("`default_limit` must be at least 1").with_span(&d.span()));
    }
    let resolved = match (&default, &max) {
        (None, None) => DefaultLimit::Core,
        (None, Some(m)) => DefaultLimit::CoreWithin(**m),
        (Some(d), None) => DefaultLimit::AgainstCoreMax(**d, d.span()),
        (Some(d), Some(m)) => {
            if **d > **m {
                errors.push(
                    darling::Error::custom(format!("`default_limit` ({}) is above `max_limit` ({})", **d, **m))
                        .with_span(&d.span()),
                );
            }
            DefaultLimit::Checked(**d)
        }
    };
    (resolved, max.map(|m| *m))
}

/// A field name must be a plain Rust identifier (the checks emitted later name it as a field of the model).
fn check_field_name(name: &LitStr, errors: &mut darling::error::Accumulator) -> bool {
    let value = name.value();
    let valid = crate::names::is_lowercase_name(&value);
    if !valid {
        errors.push(
            darling::Error::custom(format!(
                "`{value}` is not a field name: use the model's snake_case field, e.g. \"title\""
            ))
            .with_span(name),
        );
    }
    valid
}

/// The default ordering's valid terms (field, descending), and the fields of terms `ordering_fields` does not list
/// with their message: whether such a name is a field is known only to the model, so the field checks say
/// "unknown field" (with the closest one) when it is not, and this message when it is.
#[allow(clippy::type_complexity)]
fn check_ordering(
    attrs: &ViewSetAttrs,
    allowed: Option<&[LitStr]>,
    errors: &mut darling::error::Accumulator,
) -> (Vec<(LitStr, bool)>, Vec<(LitStr, String)>) {
    let mut out = Vec::new();
    let mut not_allowed = Vec::new();
    for term in &attrs.ordering.0 {
        let value = term.value();
        let (desc, name) = match value.strip_prefix('-') {
            Some(rest) => (true, rest.to_string()),
            None => (false, value.clone()),
        };
        let field = LitStr::new(&name, term.span());
        if !check_field_name(&field, errors) {
            continue;
        }
        if let Some(allowed) = allowed
            && !allowed.is_empty()
            && !allowed.iter().any(|a| a.value() == name)
        {
            let list = allowed.iter().map(|a| format!("\"{}\"", a.value())).collect::<Vec<_>>().join(", ");
            let message = format!(
                "default ordering term `{value}` is not in `ordering_fields` [{list}]: add \"{name}\" to `ordering_fields`"
            );
            not_allowed.push((LitStr::new(&name, term.span()), message));
            continue;
        }
        out.push((field, desc));
    }
    (out, not_allowed)
}

fn backend_named(backends: &[Expr], names: &[&str]) -> bool {
    backends.iter().filter_map(last_segment).any(|s| names.contains(&s.as_str()))
}

/// Configuration that would be stored and never applied is an error: each allowlist needs its backend.
fn check_backends(attrs: &ViewSetAttrs, errors: &mut darling::error::Accumulator) {
    let backends = &attrs.filter_backends.0;
    for b in backends {
        if !matches!(b, Expr::Path(_)) {
            errors.push(darling::Error::custom("a filter backend is a type, e.g. `SearchFilter`").with_span(b));
        }
    }
    let fulltext = attrs.fulltext.as_ref().map_or(&[][..], |f| &f.fields.0[..]);
    let rules: [(&[LitStr], &[&str], &str, &str); 4] = [
        (fulltext, &[FULLTEXT_FILTER], "fulltext", FULLTEXT_FILTER),
        (&attrs.filterable_fields.0, SERVICE_FILTER, "filterable_fields", "ServiceFilterBackend"),
        (&attrs.search_fields.0, &[SEARCH_FILTER], "search_fields", SEARCH_FILTER),
        (&attrs.ordering_fields.0, &[ORDERING_FILTER], "ordering_fields", ORDERING_FILTER),
    ];
    let fulltext_backend = backends.iter().find(|b| last_segment(b).as_deref() == Some(FULLTEXT_FILTER));
    super::fulltext::check_backend(fulltext_backend, &attrs.fulltext, errors);
    for (fields, names, attr, backend) in rules {
        if let Some(first) = fields.first()
            && !backend_named(backends, names)
        {
            errors.push(
                darling::Error::custom(format!(
                    "`{attr}` has no effect without `{backend}`: add it to `filter_backends = [..]`"
                ))
                .with_span(first),
            );
        }
    }
}

/// `count_mode` is one of core's `CountMode` names, and only with a paginator that counts (not the cursor's).
fn check_count_mode(attrs: &ViewSetAttrs, errors: &mut darling::error::Accumulator) -> Option<syn::Ident> {
    let lit = attrs.count_mode.as_ref()?;
    let variant = match lit.value().as_str() {
        "exact" => "Exact",
        "estimated" => "Estimated",
        "none" => "None",
        other => {
            let message = format!("`count_mode` must be one of \"exact\", \"estimated\" or \"none\", not \"{other}\"");
            errors.push(darling::Error::custom(message).with_span(lit));
            return None;
        }
    };
    let segment = attrs.pagination_class.as_ref().and_then(|p| p.segments.last()).map(|s| s.ident.to_string());
    if segment.as_deref() == Some(CURSOR_PAGINATION) {
        errors.push(
            darling::Error::custom(
                "`count_mode` has no effect with `CursorPagination`, which never counts: remove it, or use \
                 `LimitOffsetPagination` or `PageNumberPagination`",
            )
            .with_span(lit),
        );
        return None;
    }
    Some(syn::Ident::new(variant, lit.span()))
}

fn check_schema_pairs(attrs: &ViewSetAttrs, errors: &mut darling::error::Accumulator) {
    let pairs = [
        (&attrs.create_serializer_class, &attrs.create_schema_class, "create"),
        (&attrs.update_serializer_class, &attrs.update_schema_class, "update"),
    ];
    for (serializer, schema, op) in pairs {
        if let (Some(_), Some(schema)) = (serializer, schema) {
            errors.push(
                darling::Error::custom(format!(
                    "give either `{op}_serializer_class` or `{op}_schema_class`, not both: both name the {op} body type"
                ))
                .with_span(schema),
            );
        }
    }
}

/// `post::Entity` → `Post`; `Post` → `Post`.
fn model_name(path: &syn::Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let name = match segments.as_slice() {
        [.., module, last] if last == "Entity" => module.clone(),
        [.., last] => last.clone(),
        [] => String::new(),
    };
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

/// Clients can never filter, search or order by the tenant column: listing it in an allowlist is a mistake.
fn check_tenant_field(attrs: &ViewSetAttrs, errors: &mut darling::error::Accumulator) {
    let Some(tenant) = &attrs.tenant_field else { return };
    let lists = [
        ("filterable_fields", &attrs.filterable_fields.0),
        ("search_fields", &attrs.search_fields.0),
        ("ordering_fields", &attrs.ordering_fields.0),
    ];
    for (name, list) in lists {
        if let Some(lit) = list.iter().find(|l| l.value() == tenant.value()) {
            errors.push(
                darling::Error::custom(format!(
                    "`{}` is the `tenant_field`: clients cannot filter, search or order by it, so it cannot be in `{name}`",
                    tenant.value()
                ))
                .with_span(lit),
            );
        }
    }
}
