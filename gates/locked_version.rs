// Shared by the gates' build scripts (`include!`): the version Cargo.lock pins for a runtime
// crate, so that a gate's name and `Backend::runtime` say what was built, never a version
// typed by hand that an update of the lock leaves behind.

/// Sets `RUNTIME_CRATE_VERSION` for the gate's code to the locked version of `package`.
fn export_locked_version(package: &str) {
    let lock = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock");
    println!("cargo:rerun-if-changed={lock}");
    let text = std::fs::read_to_string(lock).unwrap_or_else(|e| panic!("reading {lock}: {e}"));
    let version = locked_version(&text, package)
        .unwrap_or_else(|| panic!("{lock} pins no package {package:?} (one version of it, from a registry)"));
    println!("cargo:rustc-env=RUNTIME_CRATE_VERSION={version}");
}

/// The version of the one `[[package]]` named `package` in a Cargo.lock; `None` when there is
/// none or more than one (then no single version was built).
fn locked_version(lock: &str, package: &str) -> Option<String> {
    let mut found = lock.split("[[package]]").filter_map(|entry| {
        let field = |key: &str| {
            entry.lines().find_map(|line| {
                let value = line.trim().strip_prefix(key)?.trim_start().strip_prefix('=')?;
                Some(value.trim().trim_matches('"').to_owned())
            })
        };
        (field("name")? == package).then(|| field("version"))?
    });
    let version = found.next()?;
    found.next().is_none().then_some(version)
}
