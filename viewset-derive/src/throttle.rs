//! `throttle(...)` of `#[viewset]` and `throttle = "..."` of `#[action]`: rates checked here, at their tokens, and
//! spelled as core's `throttle::Rate` and `throttle::Throttles`.

use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use crate::tokens::{option, private};

/// The largest count per period (core's `Rate::MAX_COUNT`; `tests/ui/throttle_*` keep the two equal).
const MAX_COUNT: u64 = 1_000_000;

/// `throttle(anon = "20/minute", user = "1000/day", staff = "...", create = "10/minute", ...)`: a rate per caller
/// scope and per operation. Any other key is an error with a did-you-mean (darling's).
#[derive(Debug, Clone, Default, FromMeta)]
pub struct ThrottleAttr {
    anon: Option<LitStr>,
    user: Option<LitStr>,
    staff: Option<LitStr>,
    list: Option<LitStr>,
    retrieve: Option<LitStr>,
    create: Option<LitStr>,
    update: Option<LitStr>,
    delete: Option<LitStr>,
    stream: Option<LitStr>,
    aggregate: Option<LitStr>,
}

/// The checked declaration, as tokens of core's `Throttles` (`Throttles::NONE` when nothing is written). Every
/// malformed rate is reported in `errors`, at its literal.
pub fn entry(attr: &Option<ThrottleAttr>, errors: &mut darling::error::Accumulator) -> TokenStream {
    let vs = private();
    let Some(attr) = attr else { return quote!(#vs::throttle::Throttles::NONE) };
    let mut rate_of = |lit: &Option<LitStr>| lit.as_ref().and_then(|lit| rate(lit, errors));
    let (anon, user, staff) = (rate_of(&attr.anon), rate_of(&attr.user), rate_of(&attr.staff));
    let operations = [
        ("list", &attr.list),
        ("retrieve", &attr.retrieve),
        ("create", &attr.create),
        ("update", &attr.update),
        ("delete", &attr.delete),
        ("stream", &attr.stream),
        ("aggregate", &attr.aggregate),
    ];
    let operations: Vec<TokenStream> =
        operations.into_iter().filter_map(|(name, lit)| rate_of(lit).map(|rate| quote!((#name, #rate)))).collect();
    let (anon, user, staff) = (option(anon), option(user), option(staff));
    quote!(#vs::throttle::Throttles { anon: #anon, user: #user, staff: #staff, operations: &[#(#operations),*] })
}

/// `"N/period"` as tokens of core's `Rate::new(N, Period::...)`, or its mistake reported at `lit`.
pub fn rate(lit: &LitStr, errors: &mut darling::error::Accumulator) -> Option<TokenStream> {
    let vs = private();
    let text = lit.value();
    let fail = |message: String| darling::Error::custom(message).with_span(lit);
    let Some((count, period)) = text.split_once('/') else {
        errors.push(fail(format!("`{text}` is not a rate: write `N/second`, `N/minute`, `N/hour` or `N/day`")));
        return None;
    };
    let period = match period.trim() {
        "s" | "sec" | "second" | "seconds" => quote!(Second),
        "m" | "min" | "minute" | "minutes" => quote!(Minute),
        "h" | "hour" | "hours" => quote!(Hour),
        "d" | "day" | "days" => quote!(Day),
        other => {
            errors.push(fail(format!("unknown period `{other}` in `{text}`: use second, minute, hour or day")));
            return None;
        }
    };
    let count: u32 = match count.trim().parse::<u64>() {
        Ok(0) => {
            errors.push(fail(format!(
                "`{text}` refuses every request: remove the throttle, or deny access with `permission_classes`"
            )));
            return None;
        }
        Ok(n) if n > MAX_COUNT => {
            errors.push(fail(format!(
                "`{text}` is not a limit (at most {MAX_COUNT} per period): leave the throttle out instead"
            )));
            return None;
        }
        Ok(n) => n as u32,
        Err(_) => {
            errors.push(fail(format!("`{text}`: the count before `/` must be a whole number, e.g. `100/minute`")));
            return None;
        }
    };
    Some(quote!(#vs::throttle::Rate::new(#count, #vs::throttle::Period::#period)))
}
