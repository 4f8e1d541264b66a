//! A progress bar on stderr, for long runs, when stderr is a terminal.
//!
//! The bar stays hidden for the first second, so short runs print nothing,
//! and is updated once per MiB read, so it costs nothing per frame.

use std::io::{self, IsTerminal};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

const SHOW_AFTER: Duration = Duration::from_secs(1);
const STEP: u64 = 1 << 20;

pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    shown: bool,
    next: u64,
}

impl Progress {
    /// A bar for reading `len` bytes of `file`, or the bytes read and the
    /// rate with no bar if `len` is 0, unknown (a pipe); nothing unless
    /// stderr is a terminal.
    pub fn new(file: &str, len: u64) -> Progress {
        let bar = io::stderr().is_terminal().then(|| {
            let total = (len > 0).then_some(len);
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
            let template = if total.is_some() {
                "{msg} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}"
            } else {
                "{msg} {bytes} {binary_bytes_per_sec}"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message(file.to_owned());
            bar
        });
        Progress {
            bar,
            start: Instant::now(),
            shown: false,
            next: STEP,
        }
    }

    /// `position` bytes have been read.
    #[inline]
    pub fn update(&mut self, position: u64) {
        if position >= self.next {
            self.next = position + STEP;
            self.draw(position);
        }
    }

    #[cold]
    fn draw(&mut self, position: u64) {
        let Some(bar) = &self.bar else { return };
        if !self.shown && self.start.elapsed() >= SHOW_AFTER {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        bar.set_position(position);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
