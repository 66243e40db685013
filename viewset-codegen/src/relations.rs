//! Both sides of a new table's relations: for a foreign key (`category_id` → `category`) and for a many-to-many
//! relation (`tags` through `post_tags`), the other entity's `Relation` variant and `Related` impl, and on the other
//! ViewSet `relations(...)`, `expandable` and related filters, edited into the files as text.

use super::errors::{CodegenError, pascal};
use super::layout::{self, Entity};
use super::operations::Allowlist;
use super::patch::{add_item, append_to_list, insert_in_allowlist};
use super::rust_text::{Source, ViewSetDecl, string_list, viewset_decls};

/// What one side of a relation declares on its ViewSet: `relations(<name> = <entity>::Entity)`, `<name>` in
/// `expandable` and `<name>__<field>` in `filterable_fields`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Side {
    /// The relation's name (`category`, `products`, `tags`).
    pub(crate) name: String,
    /// The related entity's module (`crate::entities::category`).
    pub(crate) module: String,
    /// The related fields filtered on (`name` for `category__name`).
    pub(crate) filters: Vec<String>,
    /// Whether `relations(...)` names it (a second foreign key to the same table has no `Related` impl of its own:
    /// it is only expandable, through its `Relation` variant).
    pub(crate) related: bool,
    /// Whether `writable_relations` names it: a many-to-many relation of the new table, whose links a create or a
    /// PATCH writes (`{"tags": [1, 2]}`; the join table has no ViewSet of its own).
    pub(crate) writable: bool,
}

impl Side {
    /// The other side of a relation the new table declares: the referenced ViewSet's `name` back to the new table's
    /// `module`, filtered on its `filters`, named in `relations(...)`, never written through.
    pub(crate) fn reverse(name: &str, module: &str, filters: &[String]) -> Side {
        Side {
            name: name.to_owned(),
            module: module.to_owned(),
            filters: filters.to_vec(),
            related: true,
            writable: false,
        }
    }
}

impl Side {
    /// The related paths it adds to `filterable_fields`.
    pub(crate) fn filter_paths(&self) -> Vec<String> {
        if !self.related {
            return Vec::new();
        }
        self.filters.iter().map(|f| format!("{}__{f}", self.name)).collect()
    }
}

/// The ViewSet declared in `src/viewsets.rs` for `entity`, if any (the first one).
pub(crate) fn viewset_of<'a>(text: &str, decls: &'a [ViewSetDecl], entity: &Entity) -> Option<&'a ViewSetDecl> {
    decls.iter().find(|d| {
        let model = d.item("model").map(|i| &text[i.value.clone()]).unwrap_or_default();
        layout::entity_of_model(std::slice::from_ref(entity), model).is_some()
    })
}

/// The fields of `entity` a related filter names: its `id`, and the string fields its ViewSet `decl` filters or
/// searches by (`name`), in that order.
pub(crate) fn filterable_strings(text: &str, decl: &ViewSetDecl, entity: &Entity) -> Vec<String> {
    let source = Source::new(text);
    let mut out = vec!["id".to_string()];
    for key in ["filterable_fields", "search_fields"] {
        let Some(list) = decl.item(key).and_then(|i| string_list(&source, i.value.clone())) else { continue };
        for field in list {
            let string = entity.field(&field).is_some_and(|f| f.ty == "String" || f.ty == "Option<String>");
            if string && !out.contains(&field) {
                out.push(field);
            }
        }
    }
    out
}

/// `text` (an entity file) with `variant` (its lines, each indented, ending with a newline) as the last variant
/// of `pub enum Relation`, and `impl_text` (ending with a newline) after the enum; `None` without such an enum.
pub(crate) fn add_to_entity(text: &str, variant: Option<&str>, impl_text: &str) -> Option<String> {
    let source = Source::new(text);
    let start = source.find("pub enum Relation", 0)?;
    let open = source.find("{", start)?;
    let close = source.matching(open)?;
    let mut out = text.to_string();
    let mut close_at = close;
    if let Some(variant) = variant {
        let inner = &text[open + 1..close];
        if inner.trim().is_empty() {
            out = format!("{}{{\n{variant}}}{}", &text[..open], &text[close + 1..]);
            close_at = open + 1 + variant.len() + 1;
        } else {
            let body = inner.trim_end();
            let comma = if body.ends_with(',') { "" } else { "," };
            out = format!("{}{body}{comma}\n{variant}}}{}", &text[..open + 1], &text[close + 1..]);
            close_at = open + 1 + body.len() + comma.len() + 1 + variant.len();
        }
    }
    let line_end = out[close_at..].find('\n').map_or(out.len(), |p| close_at + p + 1);
    let (head, tail) = out.split_at(line_end);
    let head = if head.ends_with('\n') { head.to_string() } else { format!("{head}\n") };
    Some(format!("{head}\n{impl_text}{tail}"))
}

/// `impl Related<<module>::Entity> for Entity` over the variant `variant` of this entity's `Relation`.
pub(crate) fn related_impl(doc: &str, module: &str, variant: &str) -> String {
    format!(
        "/// {doc}\nimpl Related<{module}::Entity> for Entity {{\n    fn to() -> RelationDef {{\n        Relation::{variant}.def()\n    }}\n}}\n"
    )
}

/// `impl Related<<module>::Entity> for Entity` through the join entity `join` (`to`: its variant towards the
/// related entity; `back`: its variant towards this one).
pub(crate) fn related_via(doc: &str, module: &str, join: &str, to: &str, back: &str) -> String {
    let back_line = format!("        Some({join}::Relation::{back}.def().rev())");
    let back_def = if back_line.len() <= 120 {
        back_line
    } else {
        format!(
            "        Some(\n            {join}::Relation::{back}\n                .def()\n                .rev(),\n        )"
        )
    };
    format!(
        "/// {doc}\nimpl Related<{module}::Entity> for Entity {{\n    fn to() -> RelationDef {{\n        {join}::Relation::{to}.def()\n    }}\n\n    fn via() -> Option<RelationDef> {{\n{back_def}\n    }}\n}}\n"
    )
}

/// A `has_many` variant of `Relation` named after `name` (`products` → `Products`) towards `module`.
pub(crate) fn has_many_variant(doc: &str, name: &str, module: &str) -> (String, String) {
    let variant = pascal(name);
    (format!("    /// {doc}\n    #[sea_orm(has_many = \"{module}::Entity\")]\n    {variant},\n"), variant)
}

/// `text` (`src/viewsets.rs`) with `side` declared on the ViewSet `viewset`: the relation in `relations(...)`
/// (added when absent), its name in `expandable` and its related filters in `filterable_fields`.
pub(crate) fn add_side(
    text: &str,
    viewset: &str,
    side: &Side,
    notes: &mut Vec<String>,
) -> Result<String, CodegenError> {
    let mut text = text.to_string();
    let find = |text: &str| -> ViewSetDecl {
        let source = Source::new(text);
        super::patch::decl(&viewset_decls(&source), viewset).clone()
    };
    if side.related {
        let decl = find(&text);
        let entry = format!("{} = {}::Entity", side.name, side.module);
        let source = Source::new(&text);
        let existing = decl.items.iter().find(|i| {
            let item = &text[i.range.clone()];
            item.strip_prefix("relations").is_some_and(|rest| rest.trim_start().starts_with('('))
        });
        text = match existing {
            Some(item) => {
                let open = item.range.start + text[item.range.clone()].find('(').unwrap_or(0);
                let close = source.matching(open).ok_or_else(|| {
                    CodegenError::UnsupportedLayout(format!("`relations(` of {viewset} is not closed"))
                })?;
                let items = source.split_items(open + 1..close);
                match items.last() {
                    Some(last) => format!("{}, {entry}{}", &text[..last.end], &text[last.end..]),
                    None => format!("{}{entry}{}", &text[..open + 1], &text[close..]),
                }
            }
            None => add_item(&text, &decl, &format!("relations({entry})")),
        };
    }
    let decl = find(&text);
    let quoted = format!("\"{}\"", side.name);
    match decl.item("expandable") {
        Some(item) => {
            let source = Source::new(&text);
            match string_list(&source, item.value.clone()) {
                Some(list) if list.contains(&side.name) => {}
                Some(_) => text = append_to_list(&text, item.value.clone(), &quoted),
                None => notes.push(format!("{viewset}: expandable is not a literal list: add `{}` by hand", side.name)),
            }
        }
        None => text = add_item(&text, &decl, &format!("expandable = [{quoted}]")),
    }
    for path in side.filter_paths() {
        if let Some(edited) = insert_in_allowlist(&text, viewset, Allowlist::FilterableFields, &path, notes)? {
            text = edited;
        }
    }
    notes.push(format!("{viewset}: `{}` in relations, expandable and related filters", side.name));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_and_impls_go_into_an_entity() {
        let empty = "#[derive(DeriveRelation)]\npub enum Relation {}\n\nimpl ActiveModelBehavior for ActiveModel {}\n";
        let (variant, name) = has_many_variant("Its products.", "products", "crate::entities::product");
        assert_eq!(name, "Products");
        let imp = related_impl("Its products.", "crate::entities::product", "Products");
        let out = add_to_entity(empty, Some(&variant), &imp).unwrap();
        assert_eq!(
            out,
            "#[derive(DeriveRelation)]\npub enum Relation {\n    /// Its products.\n    #[sea_orm(has_many = \"crate::entities::product::Entity\")]\n    Products,\n}\n\n/// Its products.\nimpl Related<crate::entities::product::Entity> for Entity {\n    fn to() -> RelationDef {\n        Relation::Products.def()\n    }\n}\n\nimpl ActiveModelBehavior for ActiveModel {}\n"
        );
        let full = "pub enum Relation {\n    /// A.\n    Author\n}\n\nimpl X for Y {}\n";
        let out = add_to_entity(full, Some("    Posts,\n"), "impl Z {}\n").unwrap();
        assert_eq!(
            out,
            "pub enum Relation {\n    /// A.\n    Author,\n    Posts,\n}\n\nimpl Z {}\n\nimpl X for Y {}\n"
        );
        let via = add_to_entity(full, None, "impl Z {}\n").unwrap();
        assert_eq!(via, "pub enum Relation {\n    /// A.\n    Author\n}\n\nimpl Z {}\n\nimpl X for Y {}\n");
        assert_eq!(add_to_entity("pub struct Model {}", None, "impl Z {}\n"), None);
    }

    #[test]
    fn a_side_is_declared_on_a_viewset() {
        let text = "use viewset_core::prelude::*;\n\n#[derive(ModelViewSet)]\n#[viewset(\n    model = crate::entities::category::Entity,\n    prefix = \"/api/categories\",\n    permission_classes = [IsAuthenticatedOrReadOnly],\n)]\npub struct CategoryViewSet;\n";
        let side = Side {
            name: "products".into(),
            module: "crate::entities::product".into(),
            filters: vec!["name".into()],
            related: true,
            writable: false,
        };
        let mut notes = Vec::new();
        let out = add_side(text, "CategoryViewSet", &side, &mut notes).unwrap();
        assert!(out.contains("    relations(products = crate::entities::product::Entity),\n"), "{out}");
        assert!(out.contains("    expandable = [\"products\"],\n"), "{out}");
        assert!(out.contains("    filterable_fields = [\"products__name\"],\n"), "{out}");
        assert!(out.contains("    filter_backends = [ServiceFilterBackend],\n"), "{out}");
        let tags = Side {
            name: "tags".into(),
            module: "crate::entities::tag".into(),
            filters: vec!["id".into()],
            related: true,
            writable: false,
        };
        let again = add_side(&out, "CategoryViewSet", &tags, &mut notes).unwrap();
        assert!(
            again.contains(
                "    relations(products = crate::entities::product::Entity, tags = crate::entities::tag::Entity),\n"
            ),
            "{again}"
        );
        assert!(again.contains("    expandable = [\"products\", \"tags\"],\n"), "{again}");
        assert!(again.contains("    filterable_fields = [\"products__name\", \"tags__id\"],\n"), "{again}");
    }
}
