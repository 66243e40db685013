use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// An attribute mistake does not hide a misspelt `lookup_field`: our field check reports it in the same build, once.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "articles", lookup_field = "slgu")]
pub struct ArticleViewSet;

fn main() {}
