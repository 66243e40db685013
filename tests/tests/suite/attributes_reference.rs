//! The reference of `#[viewset(...)]` (`viewset-core/docs/attributes.md`, the rustdoc of `viewset_core::ViewSet`)
//! names exactly the attributes the derive accepts: the fields of its darling struct `ViewSetAttrs`, read from
//! the derive's source. A new attribute without a row, or a row for one that is gone, fails here.

use std::collections::BTreeSet;

/// The derive's attributes: the fields of `ViewSetAttrs` but the three darling fills from the item itself.
fn accepted() -> BTreeSet<String> {
    let source = include_str!("../../../viewset-derive/src/viewset/attrs.rs");
    let body = source.split("pub struct ViewSetAttrs {").nth(1).expect("the struct").split("\n}").next().unwrap();
    body.lines()
        .filter_map(|line| line.trim().strip_prefix("pub ")?.split_once(':').map(|(name, _)| name.to_string()))
        .filter(|name| !["ident", "vis", "generics"].contains(&name.as_str()))
        .collect()
}

/// The attributes the reference's table names: every backticked name in a row's first cell.
fn documented() -> BTreeSet<String> {
    viewset_tests::docs::ATTRIBUTES
        .lines()
        .filter(|line| line.starts_with("| `"))
        .flat_map(|line| {
            let cell = line.split('|').nth(1).unwrap_or("");
            cell.split('`').skip(1).step_by(2).map(str::to_string).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_reference_names_every_attribute_of_the_derive_and_no_other() {
    let (accepted, documented) = (accepted(), documented());
    assert!(accepted.len() > 40, "read the derive's attributes: {accepted:?}");
    let missing: Vec<_> = accepted.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&accepted).collect();
    assert!(missing.is_empty(), "attributes the reference lacks: {missing:?}");
    assert!(unknown.is_empty(), "rows of the reference for no attribute: {unknown:?}");
}
