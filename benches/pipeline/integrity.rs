//! The integrity benchmark: the check at start over 100,000 tagged notes, in and out
//! of the page cache, and a start of the service on them.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use inkling::clock::SystemClock;
use inkling::storage::Store;

use crate::service;
use crate::settings;
use crate::tags::{tagged_notes, TAG_NOTES};

/// Drops the file's pages from the page cache (they are clean: nothing was written
/// since), so the next read comes from the disk, as at the first start after a boot.
fn drop_from_page_cache(path: &Path) {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).unwrap();
    // SAFETY: a valid descriptor; advice only, it changes no data.
    let failed = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(failed, 0, "posix_fadvise");
}

/// Fastest, median and slowest of a few samples, in ms.
fn spread(what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "  {what:<44} min {:7.1} ms  median {:7.1} ms  max {:7.1} ms",
        ms(samples[0]),
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() - 1])
    );
}

/// Starts of the check in each way.
const INTEGRITY_ROUNDS: usize = 5;

pub(crate) async fn integrity() {
    println!(
        "integrity: PRAGMA quick_check of {TAG_NOTES} tagged notes, {INTEGRITY_ROUNDS} rounds"
    );
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &[]);
    let path = s.database_path();
    {
        let mut store = Store::open(&path, 30).unwrap();
        // Bodies of ordinary length (~300 characters): the check reads every page.
        let filler = ": ".to_owned() + &"a thought typed in passing, ".repeat(10);
        store.import(&tagged_notes(&filler), Utc::now()).unwrap();
        store.checkpoint().unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    println!("  database: {:.1} MiB", size as f64 / (1 << 20) as f64);

    let check = |cold: bool| {
        let mut samples = Vec::new();
        for _ in 0..INTEGRITY_ROUNDS {
            if cold {
                drop_from_page_cache(&path);
            }
            let at = Instant::now();
            assert_eq!(Store::damage(&path).unwrap(), None);
            samples.push(at.elapsed());
        }
        samples
    };
    spread("quick_check, file in the page cache", check(false));
    spread("quick_check, file read from the disk", check(true));

    // A start on the file just dropped from the cache: `build` does not wait for the
    // check; the first capture does (its write waits for the verdict).
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(60))
        .finish();
    let (mut built, mut captured) = (Vec::new(), Vec::new());
    for round in 0..INTEGRITY_ROUNDS {
        drop_from_page_cache(&path);
        let at = Instant::now();
        let service = service::start_service(&s, Arc::new(SystemClock)).await;
        built.push(at.elapsed());
        let response = client
            .post(format!("{}/api/notes", service.address))
            .bearer_auth(&service.token)
            .send_json(&serde_json::json!({ "body": format!("at start {round}") }))
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        captured.push(at.elapsed());
        service.handle.stop(true).await;
        let _ = service.stopped.await;
    }
    spread("start: until `build` returns (cold file)", built);
    spread("start: until the first capture is stored", captured);
}
