use blog::entities::post;
use viewset_core::prelude::*;

// Every mistake of `fulltext`, in one build: a misspelt field, a field that is not text, a relation path, a language
// and a table that are no plain names; and `FullTextSearchFilter` on a ViewSet without `fulltext`.
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    filter_backends = [FullTextSearchFilter],
    fulltext(fields = ["titel", "views", "author__name"], language = "english; drop", sqlite_table = "Posts FTS"),
)]
pub struct PostViewSet;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/other", filter_backends = [FullTextSearchFilter])]
pub struct OtherViewSet;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/third", fulltext(fields = ["title"]))]
pub struct ThirdViewSet;

fn main() {}
