//! `cargo xtask roundtrip DIR...`: every description under DIR parses, validates,
//! re-emits identically (JSON and YAML) and satisfies the projection/merge invariants.

pub fn run(args: &[String]) -> Result<(), String> {
    if args.is_empty() {
        return Err("usage: cargo xtask roundtrip DIR...".into());
    }
    let mut all_ok = true;
    for dir in args {
        let report = mcpdesc_pipeline::roundtrip_dir(std::path::Path::new(dir))
            .map_err(|e| format!("{dir}: {e}"))?;
        print!("{}", report.render());
        all_ok &= report.ok();
    }
    if all_ok {
        Ok(())
    } else {
        Err("round trip failed".into())
    }
}
