//! Seeds a few rows when the database is empty.

use sea_orm::{ActiveModelTrait, DatabaseConnection, DbErr, EntityTrait, PaginatorTrait, Set};

use crate::entities::{author, post};

/// Inserts two authors and a few posts if there are no authors yet. Returns whether it seeded.
pub async fn seed_if_empty(db: &DatabaseConnection) -> Result<bool, DbErr> {
    if author::Entity::find().count(db).await? > 0 {
        return Ok(false);
    }
    let ada = author::ActiveModel {
        name: Set("Ada Lovelace".into()),
        email: Set(Some("ada@example.com".into())),
        ..Default::default()
    }
    .insert(db)
    .await?;
    let alan = author::ActiveModel {
        name: Set("Alan Turing".into()),
        email: Set(Some("alan@example.com".into())),
        ..Default::default()
    }
    .insert(db)
    .await?;
    let posts = [
        ("Notes on the Analytical Engine", "The engine weaves algebraic patterns.", true, 120, Some(4.5), ada.id),
        ("Computing Machinery and Intelligence", "Can machines think?", true, 300, Some(5.0), alan.id),
        ("On Computable Numbers", "A draft about decision problems.", false, 7, None, alan.id),
    ];
    for (title, body, published, views, rating, author_id) in posts {
        post::ActiveModel {
            title: Set(title.into()),
            body: Set(body.into()),
            published: Set(published),
            views: Set(views),
            rating: Set(rating),
            author_id: Set(author_id),
            ..Default::default()
        }
        .insert(db)
        .await?;
    }
    Ok(true)
}
