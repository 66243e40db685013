//! The text of a many-to-many relation's join table: its entity (the pair its primary key, a `belongs_to` to each
//! side) and the statements of the migration that creates it, in the shape of the blog's `post_tags`.

use super::errors::pascal;

/// A join table between a new table (`owner`) and an existing one (`target`).
#[derive(Debug, Clone)]
pub(crate) struct Join {
    /// The join table and its module (`post_tags`).
    pub(crate) table: String,
    /// The new table (`post`), its module path (`crate::entities::post`), its key column here (`post_id`) and
    /// the Rust type of its key (`i32`).
    pub(crate) owner: (String, String, String, String),
    /// The related table (`tag`), likewise.
    pub(crate) target: (String, String, String, String),
}

impl Join {
    /// The join entity's module path.
    pub(crate) fn module(&self) -> String {
        format!("crate::entities::{}", self.table)
    }

    /// The join entity's `Relation` variant towards the owner (`Post`) and towards the target (`Tag`).
    pub(crate) fn variants(&self) -> (String, String) {
        let variant = |column: &str| pascal(column.strip_suffix("_id").unwrap_or(column));
        (variant(&self.owner.2), variant(&self.target.2))
    }
}

fn helper(ty: &str) -> &'static str {
    if ty == "i64" { "big_integer" } else { "integer" }
}

/// The join entity's file.
pub(crate) fn entity(join: &Join) -> String {
    let (owner, owner_module, owner_col, owner_ty) = &join.owner;
    let (target, target_module, target_col, target_ty) = &join.target;
    let (owner_variant, target_variant) = join.variants();
    let table = &join.table;
    let belongs = |variant: &str, module: &str, col: &str, other: &str| {
        let attribute = super::render::belongs_to(module, &pascal(col), &format!("{module}::Column::Id"));
        format!("    /// `{col}` → `{other}.id`.\n{attribute}    {variant},\n")
    };
    let related = |module: &str, variant: &str| {
        format!(
            "\nimpl Related<{module}::Entity> for Entity {{\n    fn to() -> RelationDef {{\n        Relation::{variant}.def()\n    }}\n}}\n"
        )
    };
    format!(
        "//! `{table}`: the join table of `{owner}` and `{target}` (written by the code generator, `new_resource`). The
//! pair is the primary key, so a `{target}` is linked to a `{owner}` once; deleting either deletes its links.

use sea_orm::entity::prelude::*;
use serde::{{Deserialize, Serialize}};
use viewset_core::ModelSchema;

/// One link between a `{owner}` and a `{target}`.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
#[sea_orm(table_name = \"{table}\")]
pub struct Model {{
    /// The `{owner}`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub {owner_col}: {owner_ty},
    /// The `{target}`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub {target_col}: {target_ty},
}}

/// Relations of a link: its `{owner}` and its `{target}`.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {{
{}{}}}
{}{}
impl ActiveModelBehavior for ActiveModel {{}}
",
        belongs(&owner_variant, owner_module, owner_col, owner),
        belongs(&target_variant, target_module, target_col, target),
        related(owner_module, &owner_variant),
        related(target_module, &target_variant),
    )
}

/// The join table's `.primary_key(...)` line(s): the pair, on one line when it fits in 120 columns.
fn primary_key(table: &str, owner_col: &str, target_col: &str) -> String {
    let line = format!(
        "            .primary_key(Index::create().name(\"pk_{table}\").col(\"{owner_col}\").col(\"{target_col}\"))\n"
    );
    if line.len() <= 121 {
        return line;
    }
    format!(
        "            .primary_key(\n                Index::create()\n                    .name(\"pk_{table}\")\n                    .col(\"{owner_col}\")\n                    .col(\"{target_col}\"),\n            )\n"
    )
}

/// The statements of `up` creating the join table (after its owner's table), indented for `up`'s body.
pub(crate) fn create_statements(join: &Join) -> String {
    let table = &join.table;
    let (owner, _, owner_col, owner_ty) = &join.owner;
    let (target, _, target_col, target_ty) = &join.target;
    let link = |col: &str, other: &str| {
        format!(
            "            .foreign_key(
                ForeignKey::create()
                    .name(\"fk_{table}_{col}\")
                    .from(\"{table}\", \"{col}\")
                    .to(\"{other}\", \"id\")
                    .on_delete(ForeignKeyAction::Cascade),
            )\n"
        )
    };
    format!(
        "        // `{table}`: a `{owner}`'s `{target}` links, each pair once (the pair is the key).
        let links = Table::create()
            .table(\"{table}\")
            .if_not_exists()
            .col({}(\"{owner_col}\"))
            .col({}(\"{target_col}\"))
{}{}{}            .to_owned();
        manager.create_table(links).await?;
        // The key's leading column serves a `{owner}`'s links; this serves a `{target}`'s.
{}        manager.create_index(index).await?;\n",
        helper(owner_ty),
        helper(target_ty),
        primary_key(table, owner_col, target_col),
        link(owner_col, owner),
        link(target_col, target),
        super::render::let_chain(
            "index",
            "Index::create()",
            &[
                format!(".name(\"idx_{table}_{target_col}\")"),
                format!(".table(\"{table}\")"),
                format!(".col(\"{target_col}\")"),
                ".to_owned()".to_string()
            ]
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join() -> Join {
        Join {
            table: "post_tags".into(),
            owner: ("post".into(), "crate::entities::post".into(), "post_id".into(), "i32".into()),
            target: ("tag".into(), "crate::entities::tag".into(), "tag_id".into(), "i64".into()),
        }
    }

    #[test]
    fn the_join_entity_has_the_pair_as_its_key() {
        let text = entity(&join());
        assert!(text.contains("#[sea_orm(table_name = \"post_tags\")]"), "{text}");
        assert!(text.contains("    #[sea_orm(primary_key, auto_increment = false)]\n    pub post_id: i32,"), "{text}");
        assert!(text.contains("    #[sea_orm(primary_key, auto_increment = false)]\n    pub tag_id: i64,"), "{text}");
        // Longer than 120 columns on one line: one key per line, as rustfmt writes it.
        let tag = "    #[sea_orm(\n        belongs_to = \"crate::entities::tag::Entity\",\n        from = \"Column::TagId\",\n        \
                   to = \"crate::entities::tag::Column::Id\"\n    )]\n    Tag,";
        assert!(text.contains(tag), "{text}");
        assert!(text.contains("impl Related<crate::entities::post::Entity> for Entity {\n    fn to() -> RelationDef {\n        Relation::Post.def()"), "{text}");
        assert_eq!(join().variants(), ("Post".to_string(), "Tag".to_string()));
        let up = create_statements(&join());
        assert!(up.contains(".col(integer(\"post_id\"))\n            .col(big_integer(\"tag_id\"))"), "{up}");
        assert!(up.contains(".primary_key(Index::create().name(\"pk_post_tags\").col(\"post_id\").col(\"tag_id\"))"));
        assert!(up.contains(".to(\"tag\", \"id\")\n                    .on_delete(ForeignKeyAction::Cascade)"), "{up}");
    }
}
