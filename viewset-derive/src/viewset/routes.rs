//! Where a ViewSet's routes live and what its operations are called: `prefix` and `basename`.

use super::attrs::ViewSetAttrs;

/// `prefix`: a plain absolute path without a trailing slash; empty means core's default.
pub fn check_prefix(attrs: &ViewSetAttrs, errors: &mut darling::error::Accumulator) -> String {
    let Some(lit) = &attrs.prefix else { return String::new() };
    let value = lit.value();
    if !value.is_empty() && !value.starts_with('/') {
        errors.push(darling::Error::custom(format!("`prefix` must start with `/`: write \"/{value}\"")).with_span(lit));
    } else if value.len() > 1 && value.ends_with('/') {
        errors.push(
            darling::Error::custom(format!(
                "`prefix` must not end with `/`: collection routes add it (write \"{}\")",
                value.trim_end_matches('/')
            ))
            .with_span(lit),
        );
    } else if value.contains(['{', '}', '?', '#', ' ']) {
        errors.push(
            darling::Error::custom("`prefix` must be a plain path without `{`, `}`, `?`, `#` or spaces").with_span(lit),
        );
    }
    value
}

/// `basename`: what the operation names start with (`<basename>_list`, the OpenAPI `operationId`s and AI tool
/// names). A name of ASCII letters, digits and `_` that does not start with a digit; `None`: the table's name.
pub fn check_basename(attrs: &ViewSetAttrs, errors: &mut darling::error::Accumulator) -> Option<String> {
    let lit = attrs.basename.as_ref()?;
    let value = lit.value();
    let mut chars = value.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        let message = format!(
            "`basename` must be a name of ASCII letters, digits and `_`, not starting with a digit (operation ids \
             are `<basename>_list`, ...), not \"{value}\""
        );
        errors.push(darling::Error::custom(message).with_span(lit));
        return None;
    }
    Some(value)
}
