//! A small English pluraliser for generated names: route prefixes (`/api/categories`) and to-many relation names
//! (`category.products`). Rules: a few irregular nouns (`person` → `people`); a word that already ends in `s` (but
//! not `ss`, `us` or `is`) is taken as plural and kept; `-y` after a consonant → `-ies`; `-s`, `-x`, `-z`, `-ch`,
//! `-sh` → `-es`; else `-s`. Only the last `_` word of a snake_case name changes (`order_line` → `order_lines`).

/// Irregular nouns: (singular, plural).
const IRREGULAR: &[(&str, &str)] = &[
    ("person", "people"),
    ("child", "children"),
    ("man", "men"),
    ("woman", "women"),
    ("mouse", "mice"),
    ("goose", "geese"),
    ("tooth", "teeth"),
    ("foot", "feet"),
];

fn split_last(name: &str) -> (&str, &str) {
    match name.rfind('_') {
        Some(at) => (&name[..=at], &name[at + 1..]),
        None => ("", name),
    }
}

/// Whether `word` (one word) already reads as a plural: an irregular plural, or ending in `s` but not in `ss`,
/// `us` or `is` (`status`, `analysis` and `class` are singular).
fn looks_plural(word: &str) -> bool {
    IRREGULAR.iter().any(|(_, plural)| *plural == word)
        || (word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") && !word.ends_with("is"))
}

/// The plural of a snake_case name.
///
/// ```
/// use viewset_codegen::plural;
/// assert_eq!(plural("category"), "categories");
/// assert_eq!(plural("box"), "boxes");
/// assert_eq!(plural("person"), "people");
/// assert_eq!(plural("order_line"), "order_lines");
/// assert_eq!(plural("products"), "products", "already plural");
/// ```
pub fn plural(name: &str) -> String {
    let (head, word) = split_last(name);
    if let Some((_, plural)) = IRREGULAR.iter().find(|(singular, _)| *singular == word) {
        return format!("{head}{plural}");
    }
    if word.is_empty() || looks_plural(word) {
        return name.to_string();
    }
    let before_y = word.strip_suffix('y');
    let plural = match before_y {
        Some(stem) if !stem.is_empty() && !stem.ends_with(['a', 'e', 'i', 'o', 'u']) => format!("{stem}ies"),
        _ if word.ends_with(['s', 'x', 'z']) || word.ends_with("ch") || word.ends_with("sh") => format!("{word}es"),
        _ => format!("{word}s"),
    };
    format!("{head}{plural}")
}

/// The singular of a snake_case name, as [`plural`] would have made it (`categories` → `category`); a word that
/// does not read as a plural is kept.
///
/// ```
/// use viewset_codegen::singular;
/// assert_eq!(singular("categories"), "category");
/// assert_eq!(singular("posts"), "post");
/// assert_eq!(singular("boxes"), "box");
/// assert_eq!(singular("people"), "person");
/// assert_eq!(singular("tag"), "tag");
/// ```
pub fn singular(name: &str) -> String {
    let (head, word) = split_last(name);
    if let Some((singular, _)) = IRREGULAR.iter().find(|(_, plural)| *plural == word) {
        return format!("{head}{singular}");
    }
    if !looks_plural(word) {
        return name.to_string();
    }
    let singular = if let Some(stem) = word.strip_suffix("ies").filter(|s| !s.is_empty()) {
        format!("{stem}y")
    } else if let Some(stem) =
        word.strip_suffix("es").filter(|s| s.ends_with(['s', 'x', 'z']) || s.ends_with("ch") || s.ends_with("sh"))
    {
        stem.to_string()
    } else {
        word[..word.len() - 1].to_string()
    };
    format!("{head}{singular}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_and_back() {
        for (one, many) in [
            ("category", "categories"),
            ("product", "products"),
            ("day", "days"),
            ("key", "keys"),
            ("box", "boxes"),
            ("bus", "buses"),
            ("class", "classes"),
            ("status", "statuses"),
            ("church", "churches"),
            ("wish", "wishes"),
            ("person", "people"),
            ("child", "children"),
            ("order_line", "order_lines"),
            ("blog_category", "blog_categories"),
            ("item", "items"),
            ("tag", "tags"),
        ] {
            assert_eq!(plural(one), many, "{one}");
            assert_eq!(plural(many), many, "{many} is already plural");
            assert_eq!(singular(many), one, "{many}");
        }
        assert_eq!(singular("tag"), "tag");
        assert_eq!(singular("status"), "status");
        assert_eq!(plural(""), "");
    }
}
