//! `cargo run -p mcpdesc-codegen-check --example generate -- FILE.json OUT_DIR [rust|ts|check]`:
//! generates (and optionally checks) clients without building the CLI.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, out, mode] = args.as_slice() else {
        return Err("usage: generate FILE.json OUT_DIR rust|ts|check".into());
    };
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file)?)?;
    let valid = || {
        mcpdesc_validate::Validator::new()
            .check(&doc)
            .map_err(|d| format!("{file}: the description does not validate: {d:?}"))
    };
    let g = match mode.as_str() {
        "rust" => mcpdesc_codegen::generate_rust(&valid()?, &Default::default())?,
        "ts" => mcpdesc_codegen::generate_typescript(&valid()?, &Default::default())?,
        _ => {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
            let mut cfg = mcpdesc_codegen_check::CheckConfig::for_workspace(&root);
            cfg.work_dir = out.into();
            if let Some(t) = std::env::var_os("MCPDESC_GENERATED_TARGET_DIR") {
                cfg.cargo_target_dir = t.into();
            }
            let reports = mcpdesc_codegen_check::check_generated(&[file.into()], &cfg, true, true)?;
            for r in &reports {
                for s in &r.steps {
                    println!(
                        "{} {:.1}s {}",
                        if s.ok { "ok" } else { "FAIL" },
                        s.seconds,
                        s.step
                    );
                    if !s.ok {
                        println!("{}", s.output);
                    }
                }
                for t in &r.round_trips {
                    println!("round trip {} {}: {:?}", t.origin, t.rust_type, t.result);
                }
            }
            return Ok(());
        }
    };
    for d in &g.diagnostics {
        eprintln!("{}", d.render(file));
    }
    mcpdesc_codegen::write_files(std::path::Path::new(out), &g.files)?;
    Ok(())
}
