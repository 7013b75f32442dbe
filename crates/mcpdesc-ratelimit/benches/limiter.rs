//! The local limiter's cost per request (issue 29: at most 20 µs): one caller checked
//! over and over (mostly refused: the steady state of an abusive caller), and 10,000
//! callers in turn (mostly admitted, each one's state looked up and updated).

use criterion::{Criterion, criterion_group, criterion_main};
use mcpdesc_ratelimit::{Caller, Config, Limiter};
use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};

fn limiter(rate: &str) -> Limiter {
    let config = Config::new(rate.parse().expect("a rate"));
    Limiter::new(config)
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let one = limiter("20/min");
    let caller = Caller::peer(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)));
    c.bench_function("ratelimit/local/one_caller", |b| {
        b.iter(|| rt.block_on(one.check(black_box(&caller))))
    });
    let many = limiter("1000/s");
    let callers: Vec<Caller> = (0..10_000u32)
        .map(|i| Caller::peer(IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i))))
        .collect();
    let mut i = 0;
    c.bench_function("ratelimit/local/10k_callers", |b| {
        b.iter(|| {
            i = (i + 1) % callers.len();
            rt.block_on(many.check(black_box(&callers[i])))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
