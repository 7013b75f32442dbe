//! `cargo xtask`: the project's automation, in Rust, so contributors need only cargo.

fn main() {
    eprintln!("xtask: no commands yet");
    std::process::exit(2);
}
