//! Putting ViewSets on a router: [`include_viewset`] for one, the [`Api`] registry for an application (duplicate
//! and collision errors, route listing, the OpenAPI document and `/docs`), link-time discovery of the ViewSets of
//! a module or app ([`include_app_viewsets`], [`Settings`]), and the route [`paths`] every surface spells the same way.
//!
//! ```
//! # mod post { use sea_orm::entity::prelude::*;
//! #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
//! #   #[sea_orm(table_name = "posts")]
//! #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
//! #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
//! #   impl ActiveModelBehavior for ActiveModel {} }
//! use viewset_core::prelude::*;
//! #[derive(ModelViewSet)]
//! #[viewset(model = post::Entity, prefix = "/api/posts")]
//! pub struct PostViewSet;
//!
//! let mut api = Api::new();
//! api.include::<PostViewSet>().unwrap();
//! assert!(api.routes().iter().any(|r| r.path == "/api/posts/{pk}" && r.method == "PATCH"));
//! ```

mod api;
mod bulk;
pub(crate) mod discovery;
mod entry;
mod fallback;
mod nested;
mod ops;
pub(crate) mod routes;
mod settings;
mod tools;
mod upsert;

pub use crate::contract::paths;
pub use crate::contract::paths::operation_id;
pub use api::{Api, RegistrationError, RouteInfo, routes_of};
pub use discovery::{ViewSetEntry, include_all_app_viewsets, include_app_viewsets, viewsets_in};
pub use fallback::{slash_twin, unknown_path};
pub use routes::include_viewset;
pub use settings::Settings;
pub use tools::{ToolInfo, ToolOperation, tools_of};
