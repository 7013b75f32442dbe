//! The minimal upstream of the `serve` bench: a tiny hyper server that answers every
//! request with one fixed JSON body, as fast as it can. The load driver measures it
//! directly (the floor) and behind `mcpdesc serve` / FastMCP.
//!
//! ```text
//! upstream PORT        # 0: a free port; prints `listening on http://127.0.0.1:PORT`
//! upstream PORT sink   # a telemetry sink: reads each POST's body and answers 200 with
//!                      # an empty body (an empty OTLP/HTTP export response); a GET
//!                      # answers how many POSTs it has read (text)
//! ```

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::{Response, header};
use std::convert::Infallible;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

/// The sink's count of POSTs read.
static POSTS: AtomicU64 = AtomicU64::new(0);

/// The fixed answer: a small object, like a typical REST `GET /items/{id}`.
pub const BODY: &str = r#"{"id":42,"name":"widget","price":9.5,"tags":["a","b"],"inStock":true}"#;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (port, sink) = match (args.first().map(|p| p.parse::<u16>()), args.get(1)) {
        (Some(Ok(p)), None) => (p, false),
        (Some(Ok(p)), Some(m)) if m == "sink" && args.len() == 2 => (p, true),
        _ => {
            eprintln!("usage: upstream PORT [sink]");
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
    match rt.block_on(serve(port, sink)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("upstream: {e}");
            ExitCode::from(2)
        }
    }
}

async fn serve(port: u16, sink: bool) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    println!("listening on http://{addr}");
    std::io::stdout().flush()?;
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(
                move |req: hyper::Request<hyper::body::Incoming>| async move {
                    if sink && req.method() == hyper::Method::GET {
                        let n = POSTS.load(Ordering::Relaxed).to_string();
                        return Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(n))));
                    }
                    if sink {
                        // An OTLP/HTTP exporter's batch: read it all, answer an empty
                        // (protobuf) export response.
                        if req.into_body().collect().await.is_ok() {
                            POSTS.fetch_add(1, Ordering::Relaxed);
                        }
                        let mut r = Response::new(Full::new(Bytes::new()));
                        r.headers_mut().insert(
                            header::CONTENT_TYPE,
                            header::HeaderValue::from_static("application/x-protobuf"),
                        );
                        return Ok::<_, Infallible>(r);
                    }
                    let mut r = Response::new(Full::new(Bytes::from_static(BODY.as_bytes())));
                    r.headers_mut().insert(
                        header::CONTENT_TYPE,
                        header::HeaderValue::from_static("application/json"),
                    );
                    Ok::<_, Infallible>(r)
                },
            );
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                .await;
        });
    }
}
