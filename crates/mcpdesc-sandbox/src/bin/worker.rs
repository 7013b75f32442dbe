//! The sandbox worker program (see `mcpdesc_sandbox::worker`).

fn main() -> std::process::ExitCode {
    mcpdesc_sandbox::worker::main()
}
