//! `new_resource` writes both sides of its relations: a foreign key and a many-to-many relation on a project laid
//! out as `viewset new` writes it (`src/entities/`), previewed in memory.

use std::path::{Path, PathBuf};

use serde_json::json;
use viewset_codegen::{self as codegen, CodegenError, Operation, Preview};

struct Project(PathBuf);

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const CATEGORY: &str = "//! The `category` table.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};
use viewset_core::ModelSchema;

/// One row of `category`.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
#[sea_orm(table_name = \"category\")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    #[sea_orm(column_type = \"String(StringLen::N(255))\")]
    pub name: String,
    pub notes: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
";

const LIB: &str = "pub mod entities;\npub mod migration;\npub mod viewsets;\n\npub fn api() -> Result<Api, E> {\n    \
                   let mut api = Api::new();\n    api.include::<viewsets::CategoryViewSet>()?;\n    Ok(api)\n}\n";

const MIGRATION: &str = "use sea_orm_migration::prelude::*;\n\nmod m20261207_000001_create_category;\n\npub struct \
                         Migrator;\n\nimpl MigratorTrait for Migrator {\n    fn migrations() -> Vec<Box<dyn \
                         MigrationTrait>> {\n        vec![Box::new(m20261207_000001_create_category::Migration)]\n    \
                         }\n}\n";

const VIEWSETS: &str = "use viewset_core::prelude::*;\n\nuse crate::entities::category;\n\n#[derive(ModelViewSet)]\n\
                        #[viewset(\n    model = category::Entity,\n    prefix = \"/api/categories\",\n    \
                        filter_backends = [ServiceFilterBackend, SearchFilter],\n    filterable_fields = [\"name\"],\n    \
                        search_fields = [\"name\", \"notes\"],\n    permission_classes = [IsAuthenticatedOrReadOnly],\n)]\n\
                        pub struct CategoryViewSet;\n";

fn project(name: &str) -> Project {
    let dir = std::env::temp_dir().join(format!("viewset-both-sides-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src/entities")).unwrap();
    let files = [
        ("src/lib.rs", LIB),
        ("src/entities.rs", "//! The entities.\n\npub mod category;\n"),
        ("src/entities/category.rs", CATEGORY),
        ("src/migration.rs", MIGRATION),
        ("src/viewsets.rs", VIEWSETS),
    ];
    for (path, text) in files {
        std::fs::write(dir.join(path), text).unwrap();
    }
    Project(dir)
}

fn preview(dir: &Path, op: serde_json::Value) -> Result<Preview, CodegenError> {
    let op: Operation = serde_json::from_value(op).unwrap();
    codegen::preview(dir, &[op])
}

fn after<'a>(preview: &'a Preview, path: &str) -> &'a str {
    &preview.files.iter().find(|f| f.path == path).unwrap_or_else(|| panic!("{path} in {:?}", preview.files)).after
}

#[test]
fn a_foreign_key_is_declared_on_both_entities_and_both_viewsets() {
    let p = project("fk");
    let op = json!({
        "op": "new_resource", "table": "product",
        "columns": [
            {"name": "name", "type": "string", "max_length": 255},
            {"name": "category_id", "type": "integer", "references": {"table": "category"}}
        ],
        "viewset": {"prefix": "/api/products", "filterable_fields": ["name", "category_id"], "search_fields": ["name"]}
    });
    let preview = preview(&p.0, op).unwrap();
    let product = after(&preview, "src/entities/product.rs");
    let belongs = "    #[sea_orm(\n        belongs_to = \"crate::entities::category::Entity\",\n        from = \
                   \"Column::CategoryId\",\n        to = \"crate::entities::category::Column::Id\"\n    )]\n    Category,";
    assert!(product.contains(belongs), "{product}");
    let category = after(&preview, "src/entities/category.rs");
    let has_many = "pub enum Relation {\n    /// Its `products` (`product.category_id`).\n    #[sea_orm(has_many = \
                    \"crate::entities::product::Entity\")]\n    Products,\n}\n";
    assert!(category.contains(has_many), "{category}");
    let related = "impl Related<crate::entities::product::Entity> for Entity {\n    fn to() -> RelationDef {\n        \
                   Relation::Products.def()\n    }\n}\n\nimpl ActiveModelBehavior";
    assert!(category.contains(related), "{category}");
    let viewsets = after(&preview, "src/viewsets.rs");
    // The new ViewSet: the relation, expandable, and the category's id and string fields as related filters.
    let filters = "    filterable_fields = [\"name\", \"category_id\", \"category__id\", \"category__name\", \
                   \"category__notes\"],\n";
    assert!(viewsets.contains(filters), "{viewsets}");
    let relation = "    relations(category = crate::entities::category::Entity),\n    expandable = [\"category\"],\n";
    assert!(viewsets.contains(relation), "{viewsets}");
    // The category's ViewSet: the reverse relation.
    let filters = "    filterable_fields = [\"name\", \"products__id\", \"products__name\"],\n";
    assert!(viewsets.contains(filters), "{viewsets}");
    let relation = "    relations(products = crate::entities::product::Entity),\n    expandable = [\"products\"],\n)]\n\
                    pub struct CategoryViewSet;";
    assert!(viewsets.contains(relation), "{viewsets}");
}

#[test]
fn a_many_to_many_relation_writes_its_join_table_and_both_sides() {
    let p = project("m2m");
    let op = json!({
        "op": "new_resource", "table": "post",
        "columns": [{"name": "title", "type": "string", "max_length": 255}],
        "viewset": {"filterable_fields": ["title"]},
        "many_to_many": [{"name": "tags", "table": "category"}]
    });
    let preview = preview(&p.0, op).unwrap();
    let paths: Vec<&str> = preview.files.iter().map(|f| f.path.as_str()).collect();
    assert!(paths.contains(&"src/entities/post_tags.rs"), "{paths:?}");
    let entities = after(&preview, "src/entities.rs");
    assert!(entities.contains("pub mod category;\npub mod post;\npub mod post_tags;\n"), "{entities}");
    let post = after(&preview, "src/entities/post.rs");
    let via = "impl Related<crate::entities::category::Entity> for Entity {\n    fn to() -> RelationDef {\n        \
               crate::entities::post_tags::Relation::Category.def()\n    }\n\n    fn via() -> Option<RelationDef> \
               {\n        Some(crate::entities::post_tags::Relation::Post.def().rev())\n    }\n}\n";
    assert!(post.contains(via), "{post}");
    let category = after(&preview, "src/entities/category.rs");
    assert!(category.contains("pub enum Relation {}\n"), "no variant: {category}");
    assert!(category.contains("crate::entities::post_tags::Relation::Post.def()"), "{category}");
    let join = after(&preview, "src/entities/post_tags.rs");
    assert!(join.contains("pub post_id: i32,") && join.contains("pub category_id: i32,"), "{join}");
    let migration = &preview.files.iter().find(|f| f.path.ends_with("_create_post.rs")).unwrap().after;
    let key = ".primary_key(Index::create().name(\"pk_post_tags\").col(\"post_id\").col(\"category_id\"))";
    assert!(migration.contains(key), "{migration}");
    let down = "manager.drop_table(Table::drop().table(\"post_tags\").to_owned()).await?;\n        \
                manager.drop_table(Table::drop().table(\"post\")";
    assert!(migration.contains(down), "{migration}");
    let viewsets = after(&preview, "src/viewsets.rs");
    assert!(
        viewsets.contains("    filterable_fields = [\"title\", \"tags__id\", \"tags__name\", \"tags__notes\"],\n"),
        "{viewsets}"
    );
    let relation = "    relations(tags = crate::entities::category::Entity),\n    expandable = [\"tags\"],\n    \
                    writable_relations = [\"tags\"],\n";
    assert!(viewsets.contains(relation), "{viewsets}");
    let reverse = "    relations(posts = crate::entities::post::Entity),\n    expandable = [\"posts\"],\n)]\npub struct \
                   CategoryViewSet;";
    assert!(viewsets.contains(reverse), "{viewsets}");
    assert!(viewsets.contains("    filterable_fields = [\"name\", \"posts__id\", \"posts__title\"],\n"), "{viewsets}");
}

#[test]
fn an_unknown_or_doubled_many_to_many_is_refused_at_its_location() {
    let p = project("refused");
    let op = json!({
        "op": "new_resource", "table": "post",
        "columns": [
            {"name": "title", "type": "string"},
            {"name": "category_id", "type": "integer", "references": {"table": "category"}}
        ],
        "many_to_many": [{"name": "tags", "table": "tag"}, {"name": "title", "table": "category"}]
    });
    let Err(CodegenError::Invalid(errors)) = preview(&p.0, op) else { panic!("refused") };
    let found: Vec<(String, &str)> = errors.iter().map(|e| (json!(e.loc).to_string(), e.msg.as_str())).collect();
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!(found[0].0, r#"[0,"many_to_many",0,"table"]"#);
    assert!(found[0].1.starts_with("no entity of this project has the table `tag`"), "{found:?}");
    assert_eq!(found[1].0, r#"[0,"many_to_many",1,"name"]"#);
    assert!(found[1].1.contains("`title` is also a column"), "{found:?}");
    assert!(found[2].1.contains("also has a foreign key to `category`"), "{found:?}");
}

#[test]
fn a_key_not_named_after_its_relation_is_declared_on_the_other_side_only() {
    let p = project("owner");
    let op = json!({
        "op": "new_resource", "table": "product",
        "columns": [{"name": "owner", "type": "integer", "references": {"table": "category"}}],
    });
    let preview = preview(&p.0, op).unwrap();
    let viewsets = after(&preview, "src/viewsets.rs");
    let product = &viewsets[viewsets.find("pub struct CategoryViewSet;").unwrap()..];
    assert!(!product.contains("relations(") && !product.contains("expandable"), "`owner` is a field: {product}");
    assert!(viewsets.contains("    relations(products = crate::entities::product::Entity),\n"), "{viewsets}");
    assert!(after(&preview, "src/entities/category.rs").contains("    Products,\n"));
    let notes: Vec<&String> = preview.steps[0].notes.iter().filter(|n| n.contains("`owner`")).collect();
    assert_eq!(notes, ["`owner` does not end in `_id`: its relation is not declared on the ViewSet"]);
}
