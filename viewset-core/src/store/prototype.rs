//! The select a default list starts from: `Entity::find()` with its column list rendered once per entity and
//! backend as one expression, checked once to render exactly what `Entity::find()` renders (otherwise the entity
//! keeps `Entity::find()`). Only for the default scope ([`super::Plan::default_scope`]): sea-orm's `select_also`
//! refuses a custom expression, so the public [`crate::viewset::base_queryset`] stays on `Entity::find()`. Why:
//! bench/notes/design-notes.md.

use std::any::{Any, TypeId};
use std::mem::Discriminant;

use sea_orm::sea_query::Expr;
use sea_orm::{DbBackend, EntityTrait, QuerySelect, QueryTrait, Select};

use crate::memo::Memo;

/// A prototype `Select<E>` of the entity `E`, as `Any`; `None` where it could not be checked.
type Prototype = Option<Box<dyn Any + Send + Sync>>;

static CACHE: Memo<(TypeId, Discriminant<DbBackend>), Prototype> = Memo::new();

/// `E::find()` for `backend`, its column list pre-rendered (or `E::find()` itself when that could not be checked).
pub(crate) fn find<E: EntityTrait>(backend: DbBackend) -> Select<E> {
    let key = (TypeId::of::<E>(), std::mem::discriminant(&backend));
    if let Some(found) = CACHE.read().get(&key) {
        return found.as_ref().and_then(|p| p.downcast_ref::<Select<E>>()).map_or_else(E::find, Clone::clone);
    }
    let made = prototype::<E>(backend);
    let select = made.clone().unwrap_or_else(E::find);
    let stored = made.map(|p| Box::new(p) as Box<dyn Any + Send + Sync>);
    CACHE.insert(key, stored);
    select
}

/// Whether `select` is still [`find`]'s select of `E` for `backend`: nothing narrowed, ordered or windowed it.
pub(crate) fn is_prototype<E: EntityTrait>(select: &Select<E>, backend: DbBackend) -> bool {
    let key = (TypeId::of::<E>(), std::mem::discriminant(&backend));
    let cache = CACHE.read();
    let prototype = cache.get(&key).and_then(Option::as_ref).and_then(|p| p.downcast_ref::<Select<E>>());
    prototype.is_some_and(|prototype| prototype.as_query() == select.as_query())
}

/// `E::find()` with its column list as one expression, when it renders the same statement on `backend`.
fn prototype<E: EntityTrait>(backend: DbBackend) -> Option<Select<E>> {
    let full = E::find().build(backend);
    let mut probe = E::find();
    QuerySelect::query(&mut probe).clear_selects().expr(Expr::cust("*"));
    let from = probe.build(backend).sql;
    let columns = full.sql.strip_prefix("SELECT ")?.strip_suffix(from.strip_prefix("SELECT *")?)?;
    let columns: &'static str = Box::leak(columns.to_string().into_boxed_str());
    let mut select = E::find();
    QuerySelect::query(&mut select).clear_selects().expr(Expr::cust(columns));
    (select.clone().build(backend) == full).then_some(select)
}

#[cfg(test)]
mod tests {
    use sea_orm::entity::prelude::*;
    use sea_orm::sea_query::ExprTrait;
    use sea_orm::{DbBackend, QueryFilter, QueryOrder, QuerySelect, QueryTrait};

    use crate::test_entity as item;

    #[test]
    fn renders_what_find_renders_on_every_backend() {
        for backend in [DbBackend::Postgres, DbBackend::Sqlite, DbBackend::MySql] {
            for _ in 0..2 {
                let shape = |s: sea_orm::Select<item::Entity>| {
                    s.filter(item::Column::Name.contains("a").or(item::Column::Id.gt(2)))
                        .order_by_desc(item::Column::Id)
                        .limit(20)
                        .offset(40)
                };
                let ours = shape(super::find::<item::Entity>(backend)).build(backend);
                assert_eq!(ours, shape(item::Entity::find()).build(backend));
                assert!(ours.sql.contains(r#""items"."label""#) || ours.sql.contains("`items`.`label`"), "{ours}");
            }
        }
        // A later select_only replaces the list as it does on `find()`.
        let narrowed = super::find::<item::Entity>(DbBackend::Postgres).select_only().column(item::Column::Id);
        assert_eq!(narrowed.build(DbBackend::Postgres).sql, r#"SELECT "items"."id" FROM "items""#);
    }
}
