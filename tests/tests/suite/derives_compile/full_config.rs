use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(
    model = article::Entity,
    prefix = "/api/articles",
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["published", "views", "rating", "title"],
    search_fields = ["title", "body"],
    ordering_fields = ["id", "title", "views"],
    ordering = ["-views", "id"],
    permission_classes = [IsAuthenticatedOrReadOnly, OperationPermission::allow(&["read", "create"])],
    default_limit = 10,
    max_limit = 50,
    pagination_class = LimitOffsetPagination,
    count_mode = "estimated",
    tags = ["Articles", "Content"],
    lookup_field = "slug",
    stream_enabled = false,
    ai_exposed = false,
    require_if_match,
    basename = "articles_v2",
    csv_keep_formulas,
    bulk(create),
    max_bulk = 250,
)]
pub struct ArticleViewSet;

pub fn run() {
    let config = <ArticleViewSet as ViewSet>::CONFIG;
    assert_eq!(config.prefix, "/api/articles");
    assert_eq!(config.lookup_field, "slug");
    assert_eq!((config.default_limit, config.max_limit), (10, 50));
    assert!(!config.stream_enabled && !config.ai_exposed);
    assert!(config.require_if_match && <ArticleViewSet as Hooks>::require_if_match());
    assert_eq!(config.count_mode, viewset_core::pagination::CountMode::Estimated);
    assert_eq!((config.basename, <ArticleViewSet as ViewSet>::basename().as_str()), ("articles_v2", "articles_v2"));
    assert!(config.csv_keep_formulas);
    assert_eq!(
        config.bulk,
        viewset_core::viewset::Bulk { create: true, update: false, delete: false, max: 250, upsert_keys: &[] }
    );
    let _mount = include_viewset::<ArticleViewSet, ServiceState>;
}
