//! `kill_worker_groups` ends every worker of the process, so its test has a binary of its own
//! (the other misbehaving workers are tests/it/adversarial/workers.rs): the library leaves the
//! program's signal handlers alone and kills workers only when asked. Its workers are sh
//! scripts and it reads signal handlers: Unix only.
#![cfg(unix)]

mod support;

use std::time::Duration;

use pad_conformance::Backend;
use pad_conformance::testing::kill_worker_groups;
use support::sh_worker::{failure, setup};

#[test]
fn the_library_installs_no_signal_handler_and_kills_workers_when_asked() {
    let s = setup();
    let backend = s.start("hang", 300);
    // SAFETY: sigaction(2) with a null new action only reads the current one.
    let handler = |signal| unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        assert_eq!(libc::sigaction(signal, std::ptr::null(), &mut current), 0);
        current.sa_sigaction
    };
    // Default, or ignored as inherited (a test run under nohup or from a background shell):
    // never a handler of the library's.
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let disposition = handler(signal);
        assert!(
            disposition == libc::SIG_DFL || disposition == libc::SIG_IGN,
            "signal {signal}: a handler at {disposition:#x}"
        );
    }
    let mark = s.dir.path().join("mark");
    let killer = std::thread::spawn(move || {
        while !mark.exists() {
            std::thread::sleep(Duration::from_millis(10));
        }
        kill_worker_groups();
    });
    let message = failure(backend.run(&s.model, &s.inputs));
    killer.join().unwrap();
    assert!(message.starts_with("worker exited (signal: 9"), "{message}");
}
