use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// A default ordering naming no field of the model: the error says the field is unknown and which one was meant
// (not "add it to ordering_fields").
#[derive(ModelViewSet)]
#[viewset(
    model = article::Entity,
    filter_backends = [OrderingFilter],
    ordering_fields = ["id", "views"],
    ordering = "-veiws",
)]
pub struct ArticleViewSet;

fn main() {}
