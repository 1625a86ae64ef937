//! The crate's layering, checked: a module uses its own layer and those below, never one above,
//! and no files use each other in a circle, not even within one layer. Files are parsed whole
//! (syn), their test items left out; re-exports are followed to the file that defines the item,
//! so `super::Verdict` counts as a use of judge/verdict.rs, not of judge/mod.rs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use syn::visit::Visit;

/// Each layer's rank: a module may use its own rank and those below, never above.
const RANKS: [(&str, u8); 21] = [
    ("text", 0),
    ("cancel", 0),
    ("data", 0),
    ("proto", 0),
    ("platform", 0),
    ("tensor", 1),
    ("family", 1),
    ("model", 2),
    ("operators", 2),
    ("case", 3),
    ("reference", 4),
    ("backend", 4),
    ("judge", 5),
    ("gate", 6),
    ("report", 7),
    ("pipeline", 8),
    ("run", 8),
    ("harness", 9),
    ("fuzz", 9),
    ("testing", 10),
    ("cli", 10),
];

/// The crate root (lib.rs: the modules, the gate's API and the binary's entry) sits above
/// every layer.
const ROOT_RANK: u8 = u8::MAX;

fn rank(module: &str) -> Option<u8> {
    if module.is_empty() {
        return Some(ROOT_RANK);
    }
    let top = module.split("::").next()?;
    RANKS.iter().find(|(name, _)| *name == top).map(|(_, rank)| *rank)
}

/// A module path, `judge::check`; the crate root is the empty path.
type Module = String;

fn join(parent: &str, child: &str) -> Module {
    if parent.is_empty() {
        child.to_owned()
    } else {
        format!("{parent}::{child}")
    }
}

fn parent(module: &str) -> Module {
    module
        .rsplit_once("::")
        .map_or(String::new(), |(parent, _)| parent.to_owned())
}

/// What one file declares and names, its test items left out.
#[derive(Default)]
struct File {
    /// `mod x;` declarations outside tests.
    children: BTreeSet<String>,
    /// Names a `use` brings in, with the path each stands for, as written.
    imports: BTreeMap<String, Vec<String>>,
    /// Paths that are re-exports (`pub use`, `pub(crate) use`): structure, not a use.
    reexports: BTreeSet<Vec<String>>,
    /// Every path the code names: `use` paths and qualified paths in items, types, expressions
    /// and macro invocations.
    paths: Vec<Vec<String>>,
    /// How deep in inline modules (`mod x { … }`) the visit is: their code counts as the
    /// file's, so their `super` is the file's `self`.
    inline_depth: usize,
}

impl File {
    /// `path` as the file would write it: an inline module's leading `super`s made the file's.
    fn as_the_files(&self, mut path: Vec<String>) -> Vec<String> {
        let supers = path.iter().take_while(|s| *s == "super").count().min(self.inline_depth);
        if supers > 0 {
            path.splice(..supers, ["self".to_owned()]);
        }
        path
    }
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<proc_macro2::TokenStream>()
                .is_ok_and(|tokens| tokens.to_string() == "test")
    })
}

/// Flattens a use tree into (name in scope, path) pairs; a glob's name is `*`.
fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let name = name.ident.to_string();
            let mut full = prefix.clone();
            if name != "self" {
                full.push(name.clone());
            }
            let name = if name == "self" {
                prefix.last().cloned().unwrap_or_default()
            } else {
                name
            };
            out.push((name, full));
        }
        syn::UseTree::Rename(rename) => {
            let mut full = prefix.clone();
            if rename.ident != "self" {
                full.push(rename.ident.to_string());
            }
            out.push((rename.rename.to_string(), full));
        }
        syn::UseTree::Glob(_) => out.push(("*".to_owned(), prefix.clone())),
        syn::UseTree::Group(group) => group.items.iter().for_each(|item| flatten(item, prefix, out)),
    }
}

impl<'ast> Visit<'ast> for File {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if !is_test(attrs) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, function: &'ast syn::ImplItemFn) {
        if !is_test(&function.attrs) {
            syn::visit::visit_impl_item_fn(self, function);
        }
    }

    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        match &module.content {
            None => {
                self.children.insert(module.ident.to_string());
            }
            // An inline module's code counts as its file's.
            Some(_) => {
                self.inline_depth += 1;
                syn::visit::visit_item_mod(self, module);
                self.inline_depth -= 1;
            }
        }
    }

    // `pub(super)`, `pub(crate)`, `pub(in path)` restrict who may use an item: not a use.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut flat = Vec::new();
        flatten(&item.tree, &mut Vec::new(), &mut flat);
        let reexport = !matches!(item.vis, syn::Visibility::Inherited);
        for (name, path) in flat {
            let path = self.as_the_files(path);
            if reexport {
                self.reexports.insert(path.clone());
            }
            self.paths.push(path.clone());
            self.imports.insert(name, path);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let named = self.as_the_files(path.segments.iter().map(|s| s.ident.to_string()).collect());
        self.paths.push(named);
        syn::visit::visit_path(self, path);
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        // `#[serde(with = "crate::family::op_fields")]` names a module in a string.
        fn strings(tokens: proc_macro2::TokenStream, out: &mut Vec<Vec<String>>) {
            for token in tokens {
                match token {
                    proc_macro2::TokenTree::Group(group) => strings(group.stream(), out),
                    proc_macro2::TokenTree::Literal(literal) => {
                        let text = literal.to_string();
                        let inner = text.trim_matches('"');
                        if inner.starts_with("crate::") || inner.starts_with("super::") {
                            out.push(inner.split("::").map(str::to_owned).collect());
                        }
                    }
                    _ => {}
                }
            }
        }
        if let syn::Meta::List(list) = &attr.meta {
            strings(list.tokens.clone(), &mut self.paths);
        }
        syn::visit::visit_attribute(self, attr);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // A macro's arguments are tokens, not syntax: take every `a::b::c` run in them.
        fn runs(tokens: proc_macro2::TokenStream, out: &mut Vec<Vec<String>>) {
            let mut run: Vec<String> = Vec::new();
            let mut colons = 0;
            for token in tokens {
                match token {
                    proc_macro2::TokenTree::Ident(ident) if run.is_empty() || colons == 2 => {
                        run.push(ident.to_string());
                        colons = 0;
                        continue;
                    }
                    proc_macro2::TokenTree::Punct(punct) if punct.as_char() == ':' && !run.is_empty() => {
                        colons += 1;
                        if colons <= 2 {
                            continue;
                        }
                    }
                    proc_macro2::TokenTree::Group(group) => runs(group.stream(), out),
                    _ => {}
                }
                if run.len() > 1 {
                    out.push(std::mem::take(&mut run));
                }
                run.clear();
                colons = 0;
            }
            if run.len() > 1 {
                out.push(run);
            }
        }
        runs(mac.tokens.clone(), &mut self.paths);
        syn::visit::visit_macro(self, mac);
    }
}

struct Crate {
    files: BTreeMap<Module, File>,
}

impl Crate {
    fn read(src: &Path) -> Crate {
        let mut files = BTreeMap::new();
        for entry in walkdir::WalkDir::new(src) {
            let entry = entry.unwrap();
            let relative = entry.path().strip_prefix(src).unwrap().to_string_lossy().into_owned();
            // Windows separates with a backslash.
            let relative = relative.replace(std::path::MAIN_SEPARATOR, "/");
            let Some(stem) = relative.strip_suffix(".rs") else {
                continue;
            };
            // Test files, and the binary's one line.
            if stem.ends_with("tests") || relative.contains("/tests/") || stem == "main" || stem == "layers" {
                continue;
            }
            let module = if stem == "lib" {
                String::new()
            } else {
                stem.trim_end_matches("/mod").replace('/', "::")
            };
            let text = std::fs::read_to_string(entry.path()).unwrap();
            let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{relative}: {e}"));
            let mut file = File::default();
            file.visit_file(&parsed);
            files.insert(module, file);
        }
        Crate { files }
    }

    /// The module whose file defines what `path`, named in `from`, stands for; `None` when it
    /// lies outside the crate. Follows imports and re-exports, at most `depth` deep.
    fn resolve(&self, from: &str, path: &[String], depth: u8) -> Option<Module> {
        let file = self.files.get(from)?;
        let (mut module, rest) = match path.first()?.as_str() {
            "crate" => (String::new(), &path[1..]),
            "self" => (from.to_owned(), &path[1..]),
            "super" => {
                let mut module = parent(from);
                let mut rest = &path[1..];
                while rest.first().is_some_and(|s| s == "super") {
                    module = parent(&module);
                    rest = &rest[1..];
                }
                (module, rest)
            }
            first if file.children.contains(first) => (join(from, first), &path[1..]),
            first => {
                // A name this file's `use` brought in, followed so that `verdict::Verdict` after
                // `use super::verdict;` reaches the file; `use serde;` names itself: external.
                let imported = file.imports.get(first)?;
                if depth == 0 || imported.first().is_some_and(|s| s == first) {
                    return None;
                }
                let mut full = imported.clone();
                full.extend_from_slice(&path[1..]);
                return self.resolve(from, &full, depth - 1);
            }
        };
        let mut rest = rest;
        while let Some(segment) = rest.first() {
            let child = join(&module, segment);
            if self.files.contains_key(&child) {
                module = child;
                rest = &rest[1..];
            } else {
                break;
            }
        }
        // An item of `module`, perhaps re-exported from elsewhere.
        let reexported = rest.first().and_then(|name| self.files.get(&module)?.imports.get(name));
        if let (Some(imported), true) = (reexported, depth > 0) {
            let mut full = imported.clone();
            full.extend_from_slice(&rest[1..]);
            if let Some(found) = self.resolve(&module, &full, depth - 1) {
                return Some(found);
            }
        }
        Some(module)
    }

    /// Every use of one file by another: (user, used).
    fn edges(&self) -> BTreeSet<(Module, Module)> {
        let mut edges = BTreeSet::new();
        for (from, file) in &self.files {
            for path in &file.paths {
                if file.reexports.contains(path) {
                    continue;
                }
                if let Some(to) = self.resolve(from, path, 8) {
                    // A parent's `mod` and `pub use` of its children are structure (not paths
                    // here); any other use of a child counts, as a child's use of its parent does.
                    if to != *from {
                        edges.insert((from.clone(), to));
                    }
                }
            }
        }
        edges
    }
}

/// The circles among `edges`: each strongly connected set of two or more modules (Tarjan).
fn circles(edges: &BTreeSet<(Module, Module)>) -> Vec<Vec<Module>> {
    let mut nodes: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges {
        nodes.entry(from).or_default().push(to);
        nodes.entry(to).or_default();
    }
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<Module>>,
    }
    fn visit<'a>(node: &'a str, graph: &BTreeMap<&'a str, Vec<&'a str>>, state: &mut State<'a>) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        for &to in &graph[node] {
            if !state.index.contains_key(to) {
                visit(to, graph, state);
                let low = state.low[node].min(state.low[to]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(to) {
                let low = state.low[node].min(state.index[to]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut set = Vec::new();
            loop {
                let member = state.stack.pop().unwrap();
                state.on_stack.remove(member);
                set.push(member.to_owned());
                if member == node {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                state.found.push(set);
            }
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for &node in nodes.keys() {
        if !state.index.contains_key(node) {
            visit(node, &nodes, &mut state);
        }
    }
    state.found
}

/// The crate's files, parsed once for both checks (parsing in a debug build takes seconds).
fn the_crate() -> &'static Crate {
    static CRATE: std::sync::OnceLock<Crate> = std::sync::OnceLock::new();
    CRATE.get_or_init(|| Crate::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src")))
}

#[test]
fn no_file_uses_a_layer_above_its_own() {
    let krate = the_crate();
    assert!(krate.files.len() > 100, "{} files read", krate.files.len());
    let upward: Vec<String> = krate
        .edges()
        .into_iter()
        .filter(|(from, to)| matches!((rank(from), rank(to)), (Some(a), Some(b)) if b > a))
        .map(|(from, to)| format!("{from} uses {to}"))
        .collect();
    assert!(upward.is_empty(), "arrows pointing up:\n{}", upward.join("\n"));
}

#[test]
fn every_module_has_a_layer() {
    let unranked: Vec<&str> = the_crate()
        .files
        .keys()
        .filter(|module| rank(module).is_none())
        .map(String::as_str)
        .collect();
    assert!(unranked.is_empty(), "modules missing from RANKS: {unranked:?}");
}

#[test]
fn no_files_use_each_other_in_a_circle() {
    let edges = the_crate().edges();
    let found = circles(&edges);
    let shown: Vec<String> = found
        .iter()
        .map(|set| {
            let inside: Vec<String> = edges
                .iter()
                .filter(|(from, to)| set.contains(from) && set.contains(to))
                .map(|(from, to)| format!("{from} → {to}"))
                .collect();
            format!("{}: {}", set.join(", "), inside.join("; "))
        })
        .collect();
    assert!(shown.is_empty(), "circles:\n{}", shown.join("\n"));
}

/// A crate of the given (module, source) files, for the checks' own tests.
fn crate_of(files: &[(&str, &str)]) -> Crate {
    let mut krate = Crate { files: BTreeMap::new() };
    for (module, text) in files {
        let mut file = File::default();
        file.visit_file(&syn::parse_file(text).unwrap());
        krate.files.insert((*module).to_owned(), file);
    }
    krate
}

/// The check sees what it must: uses past test items and comments, through re-exports and
/// `super`, in macros, and a circle when there is one.
#[test]
fn the_layer_check_sees_uses_and_circles() {
    let files = [
        ("judge", "mod check; mod verdict; pub use verdict::Verdict;"),
        (
            "judge::check",
            "use super::Verdict;\n#[cfg(test)]\nmod tests { use crate::gate::X; }",
        ),
        (
            "judge::verdict",
            "// crate::fuzz\nfn f() { let _ = format!(\"{}\", crate::judge::check::status()); }",
        ),
        ("gate", "fn g() { let _: crate::judge::Verdict; }"),
        (
            "report",
            "#[derive(Serialize)]\nstruct R { #[serde(with = \"crate::gate::fields\")] a: u8 }",
        ),
    ];
    let krate = crate_of(&files);
    let edges: Vec<(Module, Module)> = krate.edges().into_iter().collect();
    let edge = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    assert_eq!(
        edges,
        [
            edge("gate", "judge::verdict"),
            edge("judge::check", "judge::verdict"),
            edge("judge::verdict", "judge::check"),
            edge("report", "gate"),
        ]
    );
    assert_eq!(
        circles(&krate.edges()),
        [vec!["judge::check".to_owned(), "judge::verdict".to_owned()]]
    );
}

/// A parent's logic using its child, and the child using the parent, is a circle like any
/// other; a `pub(super)` visibility names the parent without using it; an inline module's
/// `super` is its own file.
#[test]
fn a_parent_and_child_using_each_other_are_a_circle_and_visibility_is_no_use() {
    let files = [
        (
            "backend",
            "mod error; mod reply; pub(crate) fn run() -> error::Kind { todo!() }",
        ),
        ("backend::error", "pub(super) enum Kind { A }\nfn f() { super::run(); }"),
        ("backend::reply", "pub(super) fn parse() {}\npub(crate) struct Reply;"),
        ("unknown", "fn f() {}"),
        // An inline module's `super` is its file.
        (
            "tensor",
            "mod data_type; mod inline { use super::data_type::DataType; fn f(_: DataType) {} }",
        ),
        ("tensor::data_type", "pub(crate) struct DataType;"),
    ];
    let krate = crate_of(&files);
    let edges: Vec<(Module, Module)> = krate.edges().into_iter().collect();
    assert_eq!(
        edges,
        [
            ("backend".to_owned(), "backend::error".to_owned()),
            ("backend::error".to_owned(), "backend".to_owned()),
            ("tensor".to_owned(), "tensor::data_type".to_owned()),
        ]
    );
    assert_eq!(
        circles(&krate.edges()),
        [vec!["backend".to_owned(), "backend::error".to_owned()]]
    );
    assert_eq!(
        (rank("backend::reply"), rank("unknown"), rank("")),
        (Some(4), None, Some(ROOT_RANK))
    );
}
