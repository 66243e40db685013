//! The members app's ViewSets, found by `include_all_app_viewsets` (module `members::api`).

use viewset_core::prelude::*;

use super::member;

/// Members at `/members` (the table name).
#[derive(ModelViewSet)]
#[viewset(model = member::Entity)]
pub struct MemberViewSet;

/// Not public: discovery skips it, as the spec's "public ViewSets" says.
#[derive(ModelViewSet)]
#[viewset(model = member::Entity, prefix = "/internal/members")]
#[allow(dead_code)]
struct InternalMemberViewSet;
