//! The AI tools of a ViewSet: one per operation (`<basename>_list`, `<basename>_retrieve`, `<basename>_create`,
//! `<basename>_update`, `<basename>_delete`; with `bulk`, `<basename>_create_many`, `<basename>_update_many` and
//! `<basename>_delete_many`; with `upsert_keys`, `<basename>_upsert`; with `aggregates(...)`, `<basename>_aggregate`)
//! and one per action method (`<basename>_<action>`), for ViewSets and actions whose `ai_exposed` is true; the
//! basename is the table's name unless `basename` says otherwise. A tool's name is its route's OpenAPI
//! `operationId` ([`paths::operation_id`]), and a tool call is that route.

use crate::contract::hooks::Hooks;
use crate::contract::paths;

/// Which generated route a tool calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolOperation {
    /// `GET <prefix>/`.
    List,
    /// `GET <prefix>/{pk}`.
    Retrieve,
    /// `POST <prefix>/`.
    Create,
    /// `PATCH <prefix>/{pk}`.
    Update,
    /// `DELETE <prefix>/{pk}`.
    Delete,
    /// `POST <prefix>/bulk` with an array of records (`bulk(create)`).
    CreateMany,
    /// `PATCH <prefix>/bulk` with an array of partial records naming their keys (`bulk(update)`).
    UpdateMany,
    /// `DELETE <prefix>/bulk?<lookup>__in=…` (`bulk(delete)`).
    DeleteMany,
    /// `POST <prefix>/upsert` (`upsert_keys`).
    Upsert,
    /// `GET <prefix>/aggregate` (`aggregates(...)`).
    Aggregate,
    /// A custom action (its name is [`ToolInfo::action`]).
    Action,
}

impl ToolOperation {
    /// The operation's name: `list`, `retrieve`, `create`, `update`, `delete`, `create_many`, `update_many`,
    /// `delete_many`, `upsert`, `aggregate` or `action`.
    ///
    /// ```
    /// assert_eq!(viewset_core::registration::ToolOperation::Update.as_str(), "update");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ToolOperation::List => "list",
            ToolOperation::Retrieve => "retrieve",
            ToolOperation::Create => "create",
            ToolOperation::Update => "update",
            ToolOperation::Delete => "delete",
            ToolOperation::CreateMany => "create_many",
            ToolOperation::UpdateMany => "update_many",
            ToolOperation::DeleteMany => "delete_many",
            ToolOperation::Upsert => "upsert",
            ToolOperation::Aggregate => "aggregate",
            ToolOperation::Action => "action",
        }
    }
}

/// One AI tool: its name, the route it calls and its MCP annotations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInfo {
    /// `posts_list`, `posts_publish`, ...
    pub name: String,
    /// The ViewSet that owns the route.
    pub viewset: &'static str,
    /// The model's table.
    pub table: String,
    /// What the route does.
    pub operation: ToolOperation,
    /// The action's name, for [`ToolOperation::Action`].
    pub action: Option<&'static str>,
    /// HTTP method, upper case.
    pub method: &'static str,
    /// axum path, with `{pk}` for detail routes.
    pub path: String,
    /// The action's doc comment (empty for CRUD tools).
    pub doc: &'static str,
    /// MCP `readOnlyHint`: the route changes nothing.
    pub read_only: bool,
    /// MCP `destructiveHint`: the route may change or remove existing data.
    pub destructive: bool,
    /// MCP `idempotentHint`: repeating the call has no further effect.
    pub idempotent: bool,
}

impl ToolInfo {
    /// Whether the route has a `{pk}` segment.
    ///
    /// ```
    /// # mod post { use sea_orm::entity::prelude::*;
    /// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
    /// #   #[sea_orm(table_name = "posts")]
    /// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
    /// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
    /// #   impl ActiveModelBehavior for ActiveModel {} }
    /// use viewset_core::prelude::*;
    /// #[derive(ModelViewSet)]
    /// #[viewset(model = post::Entity, prefix = "/api/posts")]
    /// pub struct PostViewSet;
    ///
    /// let tools = viewset_core::registration::tools_of::<PostViewSet>();
    /// let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    /// assert_eq!(names, ["posts_list", "posts_retrieve", "posts_create", "posts_update", "posts_delete"]);
    /// assert!(tools[1].has_pk() && !tools[0].has_pk());
    /// assert!(tools[0].read_only && tools[4].destructive && tools[4].idempotent);
    /// ```
    pub fn has_pk(&self) -> bool {
        self.path.contains("{pk}")
    }
}

/// The tools of `V`: none when `V::CONFIG.ai_exposed` is false; actions with `ai_exposed = false` left out. An
/// action with several methods gives one tool per method (`<table>_<action>_<method>`).
pub fn tools_of<V: Hooks>() -> Vec<ToolInfo> {
    if !V::CONFIG.ai_exposed {
        return Vec::new();
    }
    tools(&paths::Named::of::<V>())
}

/// [`tools_of`] past its generic part.
fn tools(named: &paths::Named) -> Vec<ToolInfo> {
    let (table, basename) = (named.table.to_string(), &named.basename);
    let base = paths::base(&named.prefix);
    let tool = |name: String, operation, action, method, path, doc, (read_only, destructive, idempotent)| ToolInfo {
        name,
        viewset: named.config.name,
        table: table.clone(),
        operation,
        action,
        method,
        path,
        doc,
        read_only,
        destructive,
        idempotent,
    };
    let bulk = named.config.bulk;
    let crud = [
        (ToolOperation::List, "GET", paths::collection(base), (true, false, true)),
        (ToolOperation::Retrieve, "GET", paths::detail(base), (true, false, true)),
        (ToolOperation::Create, "POST", paths::collection(base), (false, false, false)),
        (ToolOperation::Update, "PATCH", paths::detail(base), (false, true, true)),
        (ToolOperation::Delete, "DELETE", paths::detail(base), (false, true, true)),
    ];
    let many = [
        (bulk.create, ToolOperation::CreateMany, "POST", paths::bulk(base), (false, false, false)),
        (bulk.update, ToolOperation::UpdateMany, "PATCH", paths::bulk(base), (false, true, true)),
        (bulk.delete, ToolOperation::DeleteMany, "DELETE", paths::bulk(base), (false, true, true)),
        (!bulk.upsert_keys.is_empty(), ToolOperation::Upsert, "POST", paths::upsert(base), (false, true, true)),
    ];
    let aggregate = (
        named.config.aggregates.is_some(),
        ToolOperation::Aggregate,
        "GET",
        paths::aggregate(base),
        (true, false, true),
    );
    let many = many.into_iter().chain([aggregate]);
    let many = many.filter(|m| m.0).map(|(_, op, method, path, hints)| (op, method, path, hints));
    let mut tools: Vec<ToolInfo> = crud
        .into_iter()
        .chain(many)
        .map(|(op, method, path, hints)| {
            tool(paths::operation_id(basename, op.as_str(), method, 1), op, None, method, path, "", hints)
        })
        .collect();
    for action in named.actions.iter().filter(|a| a.ai_exposed) {
        let path = paths::action(base, action.detail, action.path);
        for &method in action.methods {
            let name = paths::operation_id(basename, action.name, method, action.methods.len());
            // What an action does is its own: only the method's HTTP semantics are known.
            let hints = match method {
                "GET" | "HEAD" | "OPTIONS" => (true, false, true),
                "PUT" | "DELETE" => (false, true, true),
                _ => (false, true, false),
            };
            tools.push(tool(name, ToolOperation::Action, Some(action.name), method, path.clone(), action.doc, hints));
        }
    }
    tools
}
