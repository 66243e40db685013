//! A small model for compile tests: text, number, bool and nullable columns.

/// `articles`: id, title, body, views, published, rating, slug.
pub mod article {
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    /// An article.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "articles")]
    pub struct Model {
        /// Primary key.
        #[sea_orm(primary_key)]
        pub id: i32,
        /// Title.
        pub title: String,
        /// Body.
        pub body: String,
        /// Views.
        #[sea_orm(default_value = 0)]
        pub views: i32,
        /// Published flag.
        #[sea_orm(default_value = false)]
        pub published: bool,
        /// Optional rating.
        pub rating: Option<f64>,
        /// Unique slug.
        #[sea_orm(unique)]
        pub slug: String,
    }

    /// No relations.
    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// ViewSets over the blog's posts with the other paginators, for the query-layer tests.
pub mod paged {
    use blog::entities::post;
    use viewset_core::prelude::*;

    /// Posts with `PageNumberPagination` at `/paged/posts`.
    #[derive(ModelViewSet)]
    #[viewset(
        model = post::Entity,
        prefix = "/paged/posts",
        pagination_class = PageNumberPagination,
        filter_backends = [ServiceFilterBackend, OrderingFilter],
        filterable_fields = ["published"],
        ordering_fields = ["id", "views"],
        ordering = "-id",
        default_limit = 2,
        max_limit = 50,
    )]
    pub struct PagedPosts;

    /// Posts with `CursorPagination` at `/cursor/posts`, ordered by any column including the nullable `rating`.
    #[derive(ModelViewSet)]
    #[viewset(
        model = post::Entity,
        prefix = "/cursor/posts",
        pagination_class = CursorPagination,
        filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
        filterable_fields = ["published", "views"],
        search_fields = ["title"],
        ordering_fields = ["id", "title", "views", "created_at", "rating"],
        ordering = "-id",
    )]
    pub struct CursorPosts;

    /// Authors with a stream at `/stream/authors/stream`; `email` is staff-only.
    #[derive(ModelViewSet)]
    #[viewset(model = blog::entities::author::Entity, prefix = "/stream/authors", staff_only_fields = ["email"])]
    pub struct StreamAuthors;

    /// Anonymous callers see published posts only.
    pub struct PublishedToAnonymous;

    impl RowPolicy for PublishedToAnonymous {
        fn condition(&self, request: &RequestContext) -> Result<Option<sea_orm::Condition>, ApiError> {
            use sea_orm::ColumnTrait;
            Ok((!request.principal.is_authenticated())
                .then(|| sea_orm::Condition::all().add(post::Column::Published.eq(true))))
        }
    }

    /// Only published posts may be written: an object permission (the bulk and upsert tests).
    pub struct PublishedOnly;

    impl Permission for PublishedOnly {
        fn has_permission(&self, _: &RequestContext) -> bool {
            true
        }
        fn has_object_permission(&self, _: &RequestContext, object: &dyn std::any::Any) -> bool {
            object.downcast_ref::<post::Model>().is_some_and(|p| p.published)
        }
    }

    /// Posts at `/published/posts` under [`PublishedToAnonymous`].
    #[derive(ModelViewSet)]
    #[viewset(model = post::Entity, prefix = "/published/posts", policy = [PublishedToAnonymous])]
    pub struct PublishedPosts;

    /// Read-only posts: writes are denied at request time, the routes stay registered.
    #[derive(ModelViewSet)]
    #[viewset(model = post::Entity, prefix = "/readonly/posts", permission_classes = [OperationPermission::allow(&["read"])])]
    pub struct ReadOnlyPosts;

    /// Staff-only posts.
    #[derive(ModelViewSet)]
    #[viewset(model = post::Entity, prefix = "/admin/posts", permission_classes = [IsAdminUser])]
    pub struct AdminPosts;

    /// Reads for everyone, writes for staff: a composed permission.
    #[derive(ModelViewSet)]
    #[viewset(
        model = post::Entity,
        prefix = "/composed/posts",
        permission_classes = [IsAdminUser.or(OperationPermission::allow(&["read"]))],
    )]
    pub struct ComposedPosts;

    /// `OrderingFilter` without `ordering_fields`: no allowlist, so `?ordering=` is ignored and the default stays.
    #[derive(ModelViewSet)]
    #[viewset(model = post::Entity, prefix = "/unlisted/posts", filter_backends = [OrderingFilter], ordering = "-views")]
    pub struct UnlistedOrderingPosts;

    /// Posts whose default count mode is `none` (`count_mode = "none"`): no count query unless `?count=` asks.
    #[derive(ModelViewSet)]
    #[viewset(model = post::Entity, prefix = "/uncounted/posts", count_mode = "none")]
    pub struct UncountedPosts;

    /// The blog app plus these ViewSets.
    pub fn app(db: sea_orm::DatabaseConnection) -> axum::Router {
        let extra = include_viewset::<PagedPosts, _>(axum::Router::new());
        let extra = include_viewset::<CursorPosts, _>(extra);
        let extra = include_viewset::<StreamAuthors, _>(extra);
        let extra = include_viewset::<PublishedPosts, _>(extra);
        let extra = include_viewset::<ReadOnlyPosts, _>(extra);
        let extra = include_viewset::<AdminPosts, _>(extra);
        let extra = include_viewset::<ComposedPosts, _>(extra);
        let extra = include_viewset::<UnlistedOrderingPosts, _>(extra);
        let extra = include_viewset::<UncountedPosts, _>(extra);
        let auth = blog::auth::layer();
        blog::app(db.clone()).merge(extra.with_state(ServiceState::new(db))).layer(auth)
    }
}

/// Two ViewSets on the same prefix, for the collision test.
pub mod colliding {
    use blog::entities::post;
    use viewset_core::prelude::*;

    /// Posts at `/api/posts` (as the blog's `PostViewSet`).
    #[derive(ModelViewSet)]
    #[viewset(model = post::Entity, prefix = "/api/posts")]
    pub struct SamePrefixPosts;
}
