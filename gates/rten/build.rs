include!("../locked_version.rs");

fn main() {
    export_locked_version("rten");
}
