//! Discovery: every `#[derive(ModelViewSet)]` records itself (name, defining module, visibility) in a link-time
//! registry, so an application can find the ViewSets of a module or of an app without listing them.
//!
//! Rust cannot enumerate a module's items at run time, so discovery knows the module that *defines* a ViewSet
//! (`module_path!()`); a ViewSet re-exported (`pub use`) into another module is found in its defining module,
//! not in the re-exporting one.

use std::collections::BTreeMap;

use crate::registration::{Api, RegistrationError, Settings};

/// A ViewSet known to the link-time registry. Created by the derive; not constructed by hand.
#[derive(Debug)]
pub struct ViewSetEntry {
    /// The struct's name.
    pub name: &'static str,
    /// The module that defines it (`module_path!()`).
    pub module: &'static str,
    /// Whether the struct is `pub`.
    pub public: bool,
    /// Registers it on an [`Api`].
    pub include: fn(&mut Api) -> Result<&mut Api, RegistrationError>,
}

inventory::collect!(ViewSetEntry);

impl ViewSetEntry {
    /// Registers this ViewSet, recording `origin` for error messages.
    pub fn include_into(&self, api: &mut Api, origin: &str) -> Result<(), RegistrationError> {
        api.set_origin(origin);
        let result = (self.include)(api).map(|_| ());
        api.set_origin("explicitly");
        result
    }
}

/// Every public ViewSet defined in `module` (a `module_path!()`-style path such as `blog::apps::posts::api`), in
/// name order. Registers nothing. Prefer the [`discover_viewsets!`](crate::discover_viewsets) macro, which takes
/// the module itself and checks that it exists.
pub fn viewsets_in(module: &str) -> Vec<&'static ViewSetEntry> {
    let mut found: Vec<_> =
        inventory::iter::<ViewSetEntry>.into_iter().filter(|e| e.public && e.module == module).collect();
    found.sort_by_key(|e| e.name);
    found
}

/// The public ViewSets of a module, given as a path (`crate::apps::posts::api`, `self::api`, `my_crate::api`).
/// Registers nothing. The module must exist (checked at compile time).
///
/// ```ignore
/// let found = viewset_core::discover_viewsets!(crate::apps::posts::api);
/// ```
#[macro_export]
macro_rules! discover_viewsets {
    ($($module:ident)::+) => {{
        #[allow(unused_imports)]
        use $($module)::+ as _;
        $crate::registration::viewsets_in(&$crate::__private::resolve_module(::core::module_path!(), &[$(::core::stringify!($module)),+]))
    }};
}

/// Resolves `crate::`, `self::` and `super::` in a module path relative to the caller's `module_path!()`.
pub fn resolve_module(caller: &str, segments: &[&str]) -> String {
    let mut base: Vec<&str> = caller.split("::").collect();
    let mut rest = segments;
    match segments.first() {
        Some(&"crate") => {
            base.truncate(1);
            rest = &segments[1..];
        }
        Some(&"self") => rest = &segments[1..],
        Some(&"super") => {
            while let Some(&"super") = rest.first() {
                base.pop();
                rest = &rest[1..];
            }
        }
        _ => base.clear(),
    }
    base.extend_from_slice(rest);
    base.join("::")
}

/// Registers the ViewSets of `<app_label>::<module_name>` (e.g. `posts::api`, defined anywhere in the program)
/// and returns their names. An app without such a module gives an empty list.
pub fn include_app_viewsets(
    api: &mut Api,
    app_label: &str,
    module_name: &str,
) -> Result<Vec<&'static str>, RegistrationError> {
    let suffix = format!("{app_label}::{module_name}");
    let mut entries: Vec<&'static ViewSetEntry> = inventory::iter::<ViewSetEntry>
        .into_iter()
        .filter(|e| e.public && (e.module == suffix || e.module.ends_with(&format!("::{suffix}"))))
        .collect();
    entries.sort_by_key(|e| (e.module, e.name));
    let origin = format!("through discovery of app `{app_label}`");
    for entry in &entries {
        entry.include_into(api, &origin)?;
    }
    Ok(entries.iter().map(|e| e.name).collect())
}

/// [`include_app_viewsets`] for every app in `settings.apps`; returns app label → registered ViewSets, for the
/// apps that registered any.
pub fn include_all_app_viewsets(
    api: &mut Api,
    settings: &Settings,
    module_name: &str,
) -> Result<BTreeMap<String, Vec<&'static str>>, RegistrationError> {
    let mut registered = BTreeMap::new();
    for app in &settings.apps {
        let names = include_app_viewsets(api, app, module_name)?;
        if !names.is_empty() {
            registered.insert(app.clone(), names);
        }
    }
    Ok(registered)
}

#[cfg(test)]
mod tests {
    use super::resolve_module;

    #[test]
    fn resolves_relative_paths() {
        assert_eq!(resolve_module("app::apps::posts", &["crate", "apps", "api"]), "app::apps::api");
        assert_eq!(resolve_module("app::apps::posts", &["self", "api"]), "app::apps::posts::api");
        assert_eq!(resolve_module("app::apps::posts", &["super", "users", "api"]), "app::apps::users::api");
        assert_eq!(resolve_module("app::x", &["other", "api"]), "other::api");
    }
}
