//! Checks of each `#[action(...)]` against its method's signature, resolved into an [`Action`] (default method
//! GET, default path the method's name), and the route-collision check across the block's actions.

use syn::spanned::Spanned;
use syn::{FnArg, ImplItemFn, Type};

use super::attrs::{ActionOptions, doc_comment, generic_arg, json_inner, last_segment};
use crate::lists::ExprList;

/// A checked action.
pub struct Action {
    pub ident: syn::Ident,
    pub detail: bool,
    pub methods: Vec<(String, proc_macro2::Span)>,
    pub path: String,
    pub path_span: proc_macro2::Span,
    pub permissions: Option<ExprList>,
    /// `ai_exposed` as written (`None`: the core's default).
    pub ai_exposed: Option<bool>,
    /// `throttle = "..."`, checked: `Option<Rate>` as tokens.
    pub throttle: proc_macro2::TokenStream,
    /// Types of the extractor parameters after `request` (and the record).
    pub extractors: Vec<Type>,
    /// The method's doc comment.
    pub doc: String,
    /// `T` of a `JsonBody<T>` or `Json<T>` parameter.
    pub body: Option<Type>,
    /// `R` of a `Json<R>` or `Result<Json<R>, _>` return type.
    pub returns: Option<Type>,
}

const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// Checks every marked method, then the routes they make together.
pub fn check_all(methods: Vec<(ImplItemFn, ActionOptions)>, errors: &mut darling::error::Accumulator) -> Vec<Action> {
    let actions: Vec<Action> =
        methods.into_iter().filter_map(|(method, options)| check(&method, options, errors)).collect();
    check_collisions(&actions, errors);
    actions
}

fn check(method: &ImplItemFn, options: ActionOptions, parent: &mut darling::error::Accumulator) -> Option<Action> {
    let mut local = darling::Error::accumulator();
    let action = check_into(method, options, &mut local);
    parent.handle(local.finish()).and(action)
}

fn check_into(method: &ImplItemFn, options: ActionOptions, errors: &mut darling::error::Accumulator) -> Option<Action> {
    let sig = &method.sig;
    if sig.asyncness.is_none() {
        errors.push(darling::Error::custom("an action must be an `async fn`").with_span(&sig.fn_token));
    }
    if let Some(FnArg::Receiver(receiver)) = sig.inputs.first() {
        errors.push(
            darling::Error::custom("an action takes no `self`: its first parameter is `request: RequestContext`")
                .with_span(receiver),
        );
        return None;
    }
    let types: Vec<&Type> = sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            FnArg::Typed(pat) => Some(&*pat.ty),
            FnArg::Receiver(_) => None,
        })
        .collect();
    let detail = options.detail.is_present();
    let names_request = types.first().is_some_and(|t| last_segment(t).is_some_and(|s| s == "RequestContext"));
    if !names_request {
        let span = types.first().map_or(sig.ident.span(), |t| t.span());
        errors.push(
            darling::Error::custom("the first parameter of an action is `request: RequestContext`").with_span(&span),
        );
    }
    if detail && types.len() < 2 {
        errors.push(
            darling::Error::custom(
                "a detail action's second parameter receives the fetched record, e.g. `post: post::Model`",
            )
            .with_span(&sig.ident),
        );
    }
    let skip = if detail { 2 } else { 1 };
    let extractors = types.iter().skip(skip).map(|t| (*t).clone()).collect();

    let mut methods = Vec::new();
    for lit in &options.methods.0 {
        let upper = lit.value().to_ascii_uppercase();
        if METHODS.contains(&upper.as_str()) {
            methods.push((upper, lit.span()));
        } else {
            errors.push(
                darling::Error::custom(format!(
                    "unknown HTTP method `{}`: use one of {}",
                    lit.value(),
                    METHODS.join(", ")
                ))
                .with_span(lit),
            );
        }
    }
    if options.methods.0.is_empty() {
        methods.push(("GET".to_string(), sig.ident.span()));
    }
    let (path, path_span) = match &options.path {
        Some(lit) => (lit.value(), lit.span()),
        None => (sig.ident.to_string(), sig.ident.span()),
    };
    let valid_path = !path.is_empty()
        && !path.starts_with('/')
        && !path.ends_with('/')
        && path.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/'));
    if !valid_path {
        errors.push(
            darling::Error::custom("an action path is plain segments such as \"publish\" or \"by-author/latest\" (no leading or trailing `/`, no `{`)")
                .with_span(&path_span),
        );
    }
    if !detail && path == "stream" {
        errors.push(
            darling::Error::custom(
                "collection action path `stream` collides with the ViewSet's stream route; choose another path",
            )
            .with_span(&path_span),
        );
    }
    let throttle = crate::tokens::option(options.throttle.as_ref().and_then(|lit| crate::throttle::rate(lit, errors)));
    Some(Action {
        ident: sig.ident.clone(),
        detail,
        methods,
        path,
        path_span,
        permissions: options.permission_classes,
        ai_exposed: options.ai_exposed,
        throttle,
        extractors,
        doc: doc_comment(&method.attrs),
        body: types.iter().skip(skip).find_map(|t| json_inner(t)),
        returns: match &sig.output {
            syn::ReturnType::Type(_, ty) => {
                json_inner(ty).or_else(|| generic_arg(ty, "Result").and_then(|ok| json_inner(&ok)))
            }
            syn::ReturnType::Default => None,
        },
    })
}

/// Two actions on the same path and method would make axum panic at start-up: refuse them here.
fn check_collisions(actions: &[Action], errors: &mut darling::error::Accumulator) {
    for (i, a) in actions.iter().enumerate() {
        for b in &actions[..i] {
            if a.detail != b.detail || a.path != b.path {
                continue;
            }
            if let Some((method, span)) = a.methods.iter().find(|(m, _)| b.methods.iter().any(|(n, _)| n == m)) {
                errors.push(
                    darling::Error::custom(format!(
                        "`{method} {}` is already the route of action `{}`",
                        a.path, b.ident
                    ))
                    .with_span(span),
                );
            }
        }
    }
}
