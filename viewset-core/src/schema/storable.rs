//! Values a body may carry that the JSON parser accepts but a database cannot store (a date of year 300000 parses
//! as a `chrono` date, and PostgreSQL refuses it), or that do not fit the column (a decimal with more places than its
//! declared scale): refused with a 422 at the field before any SQL runs.

use sea_orm::{ActiveModelTrait, ActiveValue, ColumnTrait, EntityTrait, Iterable};

use crate::error::{ApiError, InputError};
use crate::types::columns::field_name;
use crate::types::value::{check_fits, check_storable};

/// Every column `active` will write (`Set`) holds a value every supported database stores
/// ([`check_storable`]) and that fits the column ([`check_fits`]); otherwise a 422 listing each offending field at
/// `["body", field]`.
///
/// ```
/// # mod post {
/// #     use sea_orm::entity::prelude::*;
/// #     #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
/// #     #[sea_orm(table_name = "posts")]
/// #     pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub published_on: Date }
/// #     #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
/// #     pub enum Relation {}
/// #     impl ActiveModelBehavior for ActiveModel {}
/// # }
/// use sea_orm::ActiveValue::Set;
/// let far = chrono::NaiveDate::from_ymd_opt(-4800, 1, 1).unwrap();
/// let active = post::ActiveModel { published_on: Set(far), ..Default::default() };
/// let err = viewset_core::schema::check_storable_body(&active).unwrap_err();
/// assert_eq!(err.status(), 422);
/// ```
pub fn check_storable_body<A: ActiveModelTrait>(active: &A) -> Result<(), ApiError> {
    // A loop, not an iterator chain: adapters over closures are compiled again for every model.
    let mut errors = Vec::new();
    for column in <A::Entity as EntityTrait>::Column::iter() {
        let ActiveValue::Set(value) = active.get(column) else { continue };
        let checked = match check_storable(&value) {
            // Only a decimal has a precision to fit (`def()` builds the column's definition).
            Ok(()) if matches!(value, sea_orm::Value::Decimal(Some(_))) => {
                check_fits(column.def().get_column_type(), &value)
            }
            checked => checked,
        };
        if let Err(msg) = checked {
            errors.push(InputError::new(["body", field_name::<A::Entity>(column)], msg, "value_error"));
        }
    }
    if errors.is_empty() { Ok(()) } else { Err(ApiError::Input(errors)) }
}
