//! Code mode's sandbox worker for the code bench (see `mcpdesc_sandbox::worker`).

fn main() -> std::process::ExitCode {
    mcpdesc_sandbox::worker::main()
}
