//! The whole-process reference of issue 7: read a JSON file, parse it into a
//! `serde_json::Value`, write it (pretty) to another file. `mcpdesc import openapi`
//! does at least this much work on the same input, so its wall time and peak RSS are
//! reported as ratios to this program's.
//!
//! ```text
//! baseline INPUT.json OUTPUT.json
//! ```

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: baseline INPUT.json OUTPUT.json");
        return ExitCode::from(2);
    };
    match run(input, output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("baseline: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(input: &str, output: &str) -> Result<(), String> {
    let bytes = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("{input}: {e}"))?;
    // Same shape of output work as `mcpdesc import openapi -o FILE.json`: one pretty
    // string, then one write.
    let mut text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
    text.push('\n');
    let mut f = std::fs::File::create(output).map_err(|e| format!("{output}: {e}"))?;
    f.write_all(text.as_bytes())
        .map_err(|e| format!("{output}: {e}"))?;
    Ok(())
}
