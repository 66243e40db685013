use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, permission_classes = [IsAuthenticated, OnlyStaff])]
pub struct ArticleViewSet;

/// Meant as a permission class, but `impl Permission for OnlyStaff` was never written.
pub struct OnlyStaff;

fn main() {}
