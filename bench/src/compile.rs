//! Compile cost: two throwaway apps generated in the temporary directory (outside the repository, each its own
//! workspace root, `viewset-core` by path, the workspace's `Cargo.lock`), built in the debug profile with their own
//! target directory. Both hold the same 20 blog-like entities (`DeriveEntityModel` + `ModelSchema`); one registers
//! 1 ViewSet, the other 20 (the blog's `PostViewSet` configuration), so the difference is the cost of the ViewSets.
//! They build with cargo's default dev profile (a hand-written app's), or with `--profile new` with the dev profile
//! `viewset new` writes (read from its template), each into its own target directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

use crate::repo::repo_root;

/// The dev profile the apps build with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Cargo's default (`debug = true` for the app and every dependency): what a hand-written app gets.
    Default,
    /// The `[profile.dev…]` sections of the manifest `viewset new` writes (`viewset-cli/templates/Cargo.toml.tmpl`).
    New,
}

#[derive(Debug, Clone)]
pub struct Options {
    pub out: Option<PathBuf>,
    /// `None`: `target-bench/compile` (cargo's default profile) or `target-bench/compile-new`.
    pub target_dir: Option<PathBuf>,
    pub profile: Profile,
    pub dir: PathBuf,
    /// Leaves the apps in `dir` afterwards (for `cargo llvm-lines` on them).
    pub keep: bool,
}

impl Default for Options {
    fn default() -> Self {
        // The apps are written outside the repository: cargo reads the `.cargo/config.toml` of every folder above a
        // project, and the repository's trims the dev profile's debug info. An app here builds with the profile its
        // own manifest gives, as a user's does.
        let dir = std::env::temp_dir().join("viewset-bench-compile");
        Options { out: None, target_dir: None, profile: Profile::Default, dir, keep: false }
    }
}

impl Options {
    /// The apps' target directory: `--target-dir`, else one per profile, so that neither rebuilds the other's
    /// dependencies.
    fn target(&self, root: &Path) -> PathBuf {
        let default = match self.profile {
            Profile::Default => "target-bench/compile",
            Profile::New => "target-bench/compile-new",
        };
        self.target_dir.clone().unwrap_or_else(|| root.join(default))
    }

    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--out" => o.out = Some(PathBuf::from(it.next().ok_or("--out takes a file")?)),
                "--target-dir" => o.target_dir = Some(PathBuf::from(it.next().ok_or("--target-dir takes a dir")?)),
                "--profile" => {
                    o.profile = match it.next().map(String::as_str) {
                        Some("default") => Profile::Default,
                        Some("new") => Profile::New,
                        _ => return Err("--profile takes `default` or `new`".into()),
                    }
                }
                "--keep" => o.keep = true,
                other => return Err(format!("unknown option `{other}`\n{}", crate::USAGE)),
            }
        }
        Ok(o)
    }
}

/// `viewset-bench compile`: measures and prints (or writes) the JSON.
pub fn run(o: Options) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let value = runtime.block_on(measure(&o))?;
    let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
    match &o.out {
        Some(path) => std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display())),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}

const MODELS: usize = 20;

/// The manifest lines of the apps' dev profile: none for cargo's default, else every `[profile.dev…]` section of
/// the template `viewset new` writes its manifest from, as it is there.
fn dev_profile_lines(root: &Path, profile: Profile) -> Result<String, String> {
    if profile == Profile::Default {
        return Ok(String::new());
    }
    let path = root.join("viewset-cli/templates/Cargo.toml.tmpl");
    let template = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (mut out, mut inside) = (String::new(), false);
    for line in template.lines() {
        if line.starts_with('[') {
            inside = line.starts_with("[profile.dev]") || line.starts_with("[profile.dev.");
        }
        if inside && !line.trim().is_empty() && !line.starts_with('#') {
            out += line;
            out.push('\n');
        }
    }
    if out.is_empty() {
        return Err(format!("{}: no [profile.dev] section", path.display()));
    }
    Ok(out)
}

/// The `[workspace.dependencies]` lines of the root manifest for `names`, so the apps use the same versions
/// and features as the workspace.
fn workspace_dependency_lines(root: &Path, names: &[&str]) -> Result<String, String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).map_err(|e| e.to_string())?;
    let mut out = String::new();
    for name in names {
        let line = manifest
            .lines()
            .find(|l| l.starts_with(&format!("{name} =")))
            .ok_or_else(|| format!("no `{name}` in [workspace.dependencies]"))?;
        out += line;
        out.push('\n');
    }
    Ok(out)
}

fn model_module(i: usize) -> String {
    format!(
        r#"
mod m{i:02} {{
    use sea_orm::entity::prelude::*;
    use serde::{{Deserialize, Serialize}};
    use viewset_core::ModelSchema;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "posts_{i:02}")]
    pub struct Model {{
        #[sea_orm(primary_key)]
        pub id: i32,
        #[sea_orm(column_type = "String(StringLen::N(200))")]
        pub title: String,
        #[sea_orm(column_type = "Text")]
        pub body: String,
        #[sea_orm(default_value = false)]
        pub published: bool,
        #[sea_orm(default_value = 0)]
        pub views: i32,
        pub rating: Option<f64>,
        pub author_id: i32,
        #[viewset(read_only)]
        pub created_at: DateTimeUtc,
    }}

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {{}}

    impl ActiveModelBehavior for ActiveModel {{}}
}}
"#
    )
}

fn viewset(i: usize) -> String {
    format!(
        r#"
#[derive(ModelViewSet)]
#[viewset(
    model = m{i:02}::Entity,
    prefix = "/api/m{i:02}",
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["published", "views", "author_id", "rating", "title", "created_at"],
    search_fields = ["title", "body"],
    ordering_fields = ["id", "title", "views", "created_at"],
    ordering = "-id",
    permission_classes = [IsAuthenticatedOrReadOnly],
)]
pub struct V{i:02};
"#
    )
}

fn main_rs(viewsets: usize, tag: u32) -> String {
    let mut s = String::from(
        "//! Generated by `viewset-bench compile`; thrown away after the measurement.\n\
         #![allow(dead_code)]\n\nuse viewset_core::prelude::*;\n",
    );
    for i in 1..=MODELS {
        s += &model_module(i);
    }
    for i in 1..=viewsets {
        s += &viewset(i);
    }
    s += "\nfn app(db: sea_orm::DatabaseConnection) -> axum::Router {\n    let router = axum::Router::new();\n";
    for i in 1..=viewsets {
        s += &format!("    let router = include_viewset::<V{i:02}, _>(router);\n");
    }
    s += "    router.with_state(ServiceState::new(db))\n}\n\n";
    s += &format!("const BUILD_TAG: &str = \"edit {tag}\";\n\n");
    s += "fn main() {\n    // Keeps every route in the binary; nothing here connects to a database.\n    \
          let app: fn(sea_orm::DatabaseConnection) -> axum::Router = app;\n    \
          println!(\"{BUILD_TAG} {:p}\", std::hint::black_box(app));\n}\n";
    s
}

struct App {
    name: String,
    dir: PathBuf,
    viewsets: usize,
}

fn write_app(root: &Path, dir: &Path, viewsets: usize, deps: &str, profile: &str) -> Result<App, String> {
    let name = format!("vsbench-app-{viewsets}");
    let app_dir = dir.join(&name);
    std::fs::create_dir_all(app_dir.join("src")).map_err(|e| format!("{}: {e}", app_dir.display()))?;
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         # Its own workspace: not a member of the viewset workspace.\n[workspace]\n\n[dependencies]\n\
         viewset-core = {{ path = \"{}\" }}\n{deps}\n{profile}",
        root.join("viewset-core").display()
    );
    std::fs::write(app_dir.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    std::fs::copy(root.join("Cargo.lock"), app_dir.join("Cargo.lock")).map_err(|e| e.to_string())?;
    std::fs::write(app_dir.join("src/main.rs"), main_rs(viewsets, 0)).map_err(|e| e.to_string())?;
    Ok(App { name, dir: app_dir, viewsets })
}

/// Runs `cargo <args>` in the app with the given target dir; returns seconds and stderr.
fn cargo(app: &App, target: &Path, args: &[&str]) -> Result<(f64, String), String> {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.args(args).arg("--target-dir").arg(target).current_dir(&app.dir).env_remove("CARGO_TARGET_DIR");
    let start = Instant::now();
    let out = c.output().map_err(|e| format!("cargo {args:?}: {e}"))?;
    let secs = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if !out.status.success() {
        let tail: Vec<&str> = stderr.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!("cargo {} in {} failed:\n{}", args.join(" "), app.dir.display(), tail.join("\n")));
    }
    Ok((secs, stderr))
}

fn clean_app(app: &App, target: &Path) -> Result<(), String> {
    cargo(app, target, &["clean", "--offline", "-p", &app.name]).map(|_| ())
}

fn edit(app: &App, tag: u32) -> Result<(), String> {
    std::fs::write(app.dir.join("src/main.rs"), main_rs(app.viewsets, tag)).map_err(|e| e.to_string())
}

fn measure_app(app: &App, target: &Path) -> Result<Value, String> {
    // Each timing is checked to have compiled the app crate itself (cargo names it on stderr).
    let compiled = |stderr: &str, verb: &str| stderr.contains(&format!("{verb} {} v0.0.0", app.name));
    clean_app(app, target)?;
    let (clean, out) = cargo(app, target, &["build", "--offline"])?;
    let clean_ok = compiled(&out, "Compiling");
    edit(app, 1)?;
    let (incremental, out) = cargo(app, target, &["build", "--offline"])?;
    let incremental_ok = compiled(&out, "Compiling");
    clean_app(app, target)?;
    let (check, out) = cargo(app, target, &["check", "--offline"])?;
    let check_ok = compiled(&out, "Checking");
    Ok(json!({
        "viewsets": app.viewsets,
        "clean_app_build_s": clean,
        "incremental_build_s": incremental,
        "check_s": check,
        "app_crate_was_compiled": clean_ok && incremental_ok && check_ok,
    }))
}

/// Generates the apps, builds them, and returns the timings.
pub async fn measure(o: &Options) -> Result<Value, String> {
    let root = repo_root();
    let deps = workspace_dependency_lines(&root, &["axum", "sea-orm", "serde"])?;
    let profile = dev_profile_lines(&root, o.profile)?;
    let one = write_app(&root, &o.dir, 1, &deps, &profile)?;
    let twenty = write_app(&root, &o.dir, MODELS, &deps, &profile)?;
    let target = o.target(&root);
    let cached = target.join("debug").exists();
    eprintln!("   building dependencies (debug profile) into {}", target.display());
    let (cold, _) = cargo(&one, &target, &["build", "--offline"])?;
    cargo(&twenty, &target, &["build", "--offline"])?;
    // `cargo check` needs the dependencies' metadata in the check profile: built once, outside the timings.
    cargo(&twenty, &target, &["check", "--offline"])?;
    eprintln!("   measuring the 1-ViewSet app");
    let a = measure_app(&one, &target)?;
    eprintln!("   measuring the 20-ViewSet app");
    let b = measure_app(&twenty, &target)?;
    let mut per = json!({});
    for key in ["clean_app_build_s", "incremental_build_s", "check_s"] {
        per[key] = match (a[key].as_f64(), b[key].as_f64()) {
            (Some(x), Some(y)) => json!((y - x) / (MODELS - 1) as f64),
            _ => Value::Null,
        };
    }
    if o.keep {
        eprintln!("   kept the apps in {}", o.dir.display());
    } else {
        for app in [&one, &twenty] {
            let _ = std::fs::remove_dir_all(&app.dir);
        }
    }
    Ok(json!({
        "profile": "debug",
        "dev_profile": match o.profile {
            Profile::Default => Value::from("cargo's default"),
            Profile::New => Value::from(profile.trim_end()),
        },
        "models_per_app": MODELS,
        "cold_build_s": cold,
        "cold_build_cached": cached,
        "one": a,
        "twenty": b,
        "per_viewset": per,
        "note": format!(
            "Both apps hold the same {MODELS} entities (sea-orm `DeriveEntityModel` + `ModelSchema`); one registers \
             1 ViewSet, the other {MODELS} (the blog's `PostViewSet` configuration each). \"Per extra ViewSet\" is \
             (20-ViewSet time − 1-ViewSet time) / {}: for `cargo check`, the derive's expansion plus type-checking of \
             the generated code (stable Rust cannot time expansion alone: `-Z time-passes` needs RUSTC_BOOTSTRAP, \
             which makes proc-macro2's build script rebuild every dependency); for `cargo build`, code generation \
             and linking on top. Each figure is one build, on a shared 2-core machine.",
            MODELS - 1
        ),
    }))
}
