//! Seeds a few rows when the database is empty.

use sea_orm::{ActiveModelTrait, DatabaseConnection, DbErr, EntityTrait, PaginatorTrait, Set};

use crate::entities::{author, post, post_tag, tag};

/// Inserts two authors, three posts and three tags if there are no authors yet: `history` on post 1, `machines` on
/// posts 1 and 2, `logic` on post 3. Returns whether it seeded.
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
    let mut ids = Vec::new();
    for (title, body, published, views, rating, author_id) in posts {
        let post = post::ActiveModel {
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
        ids.push(post.id);
    }
    for (name, posts) in [("history", &[0][..]), ("machines", &[0, 1]), ("logic", &[2])] {
        let tag = tag::ActiveModel { name: Set(name.into()), ..Default::default() }.insert(db).await?;
        for &at in posts {
            let link = post_tag::ActiveModel { post_id: Set(ids[at]), tag_id: Set(tag.id) };
            post_tag::Entity::insert(link).exec_without_returning(db).await?;
        }
    }
    Ok(true)
}
