//! The minimal upstream of the `serve` bench: a tiny hyper server that answers every
//! request with one fixed JSON body, as fast as it can. The load driver measures it
//! directly (the floor) and behind `mcpdesc serve` / FastMCP.
//!
//! ```text
//! upstream PORT      # 0: a free port; prints `listening on http://127.0.0.1:PORT`
//! ```

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, header};
use std::convert::Infallible;
use std::io::Write;
use std::process::ExitCode;

/// The fixed answer: a small object, like a typical REST `GET /items/{id}`.
pub const BODY: &str = r#"{"id":42,"name":"widget","price":9.5,"tags":["a","b"],"inStock":true}"#;

fn main() -> ExitCode {
    let port: u16 = match std::env::args().nth(1).map(|p| p.parse()) {
        Some(Ok(p)) => p,
        _ => {
            eprintln!("usage: upstream PORT");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("upstream: {e}");
            return ExitCode::from(2);
        }
    };
    match rt.block_on(serve(port)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("upstream: {e}");
            ExitCode::from(2)
        }
    }
}

async fn serve(port: u16) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    println!("listening on http://{addr}");
    std::io::stdout().flush()?;
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(|_req| async {
                let mut r = Response::new(Full::new(Bytes::from_static(BODY.as_bytes())));
                r.headers_mut().insert(
                    header::CONTENT_TYPE,
                    header::HeaderValue::from_static("application/json"),
                );
                Ok::<_, Infallible>(r)
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                .await;
        });
    }
}
