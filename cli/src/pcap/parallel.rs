//! Several files at once, one per thread, their results taken in argument
//! order.
//!
//! [`in_order`] runs a job per file on at most
//! [`available_parallelism`](std::thread::available_parallelism) threads.
//! The jobs are claimed in argument order; each sends its results through
//! a channel of its own, bounded, which the calling thread drains file
//! after file. A job whose channel is full waits until its file's turn
//! comes: what it has not sent yet stays unread in its file, so memory
//! stays bounded whatever the files' sizes.
//!
//! This order cannot deadlock: the earliest file not finished is always
//! claimed by a thread that can go on, since the calling thread drains
//! its channel, every job waiting for its turn at standard input
//! ([`Turns`]) waits for earlier files only, and every job waiting to
//! start waits for earlier files to be taken.

use std::num::NonZero;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Condvar, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

/// How often a job waiting for its turn at standard input looks whether
/// the run is being stopped.
const TICK: Duration = Duration::from_millis(50);

/// How many threads to run `jobs` jobs on: one per job, at most one per
/// core the process may use, at least one.
pub fn threads(jobs: usize) -> usize {
    thread::available_parallelism()
        .map_or(1, NonZero::get)
        .min(jobs)
        .max(1)
}

/// One job: the sending end of its channel, and whether the whole run is
/// being stopped.
pub struct Job<'a, M> {
    sender: SyncSender<M>,
    stop: &'a AtomicBool,
}

impl<M> Job<'_, M> {
    /// Sends `message` to the calling thread, waiting while the channel is
    /// full: `false` if the run is being stopped (the message is dropped).
    pub fn send(&self, message: M) -> bool {
        !self.stopped() && self.sender.send(message).is_ok()
    }

    /// Whether the run is being stopped: the job should end, its results
    /// will not be read.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The flag that tells whether the run is being stopped.
    pub fn stop_flag(&self) -> &AtomicBool {
        self.stop
    }
}

/// Runs `work(i, job)` for each `i` in `0..jobs` on `threads` threads,
/// each with a channel of `bound` messages, and `take(i, receiver)` on the
/// calling thread for each `i` in order, as the messages come. A job
/// starts only within [`AHEAD`] jobs per thread of the one being taken:
/// what waits to be taken is bounded, however many jobs there are. `take`
/// returning [`ControlFlow::Break`] stops the run: the jobs running are
/// told to stop ([`Job::stopped`], [`Job::send`] fails), no other starts,
/// and the value is returned once every thread has ended.
///
/// `take` sees its receiver disconnected, with no message left, only if
/// its job ended without sending what it should: a panic, which is
/// propagated once every thread has ended.
pub fn in_order<M, B, W, T>(
    jobs: usize,
    threads: usize,
    bound: usize,
    work: W,
    mut take: T,
) -> Option<B>
where
    M: Send,
    W: Fn(usize, &Job<'_, M>) + Sync,
    T: FnMut(usize, &Receiver<M>) -> ControlFlow<B>,
{
    let threads = threads.clamp(1, jobs.max(1));
    let window = threads * AHEAD;
    let stop = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    // How many jobs have been taken, and the signal that one more was.
    let taken = Mutex::new(0);
    let more_taken = Condvar::new();
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..jobs).map(|_| sync_channel(bound)).unzip();
    let senders: Vec<Mutex<Option<SyncSender<M>>>> =
        senders.into_iter().map(|s| Mutex::new(Some(s))).collect();
    thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(slot) = senders.get(i) else { break };
                    let mut done = taken.lock().unwrap_or_else(PoisonError::into_inner);
                    while i >= *done + window && !stop.load(Ordering::Relaxed) {
                        done = more_taken
                            .wait(done)
                            .unwrap_or_else(PoisonError::into_inner);
                    }
                    drop(done);
                    let sender = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
                    let Some(sender) = sender else { continue };
                    work(
                        i,
                        &Job {
                            sender,
                            stop: &stop,
                        },
                    );
                }
            });
        }
        let mut result = None;
        for (i, receiver) in receivers.into_iter().enumerate() {
            if let ControlFlow::Break(value) = take(i, &receiver) {
                result = Some(value);
                break;
            }
            *taken.lock().unwrap_or_else(PoisonError::into_inner) = i + 1;
            more_taken.notify_all();
        }
        // Also when every job was taken: the threads end. When `take`
        // stopped the run, the receivers left are dropped, so a job
        // waiting on a full channel gets an error and ends, and one
        // waiting to start is woken.
        let guard = taken.lock().unwrap_or_else(PoisonError::into_inner);
        stop.store(true, Ordering::Relaxed);
        drop(guard);
        more_taken.notify_all();
        result
    })
}

/// How many jobs per thread may start before the one being taken: each
/// holds up to a channel's messages until its turn.
pub const AHEAD: usize = 2;

/// The turns of the jobs that read standard input: one after another, in
/// argument order, as a single thread would read it (a second `-` reads
/// what the first left).
pub struct Turns {
    /// The indices of the jobs that read standard input, in order.
    order: Vec<usize>,
    /// How many of them have ended.
    done: Mutex<usize>,
    ended: Condvar,
}

impl Turns {
    /// The turns of the jobs whose indices are `order`, in increasing
    /// order.
    pub fn new(order: Vec<usize>) -> Turns {
        Turns {
            order,
            done: Mutex::new(0),
            ended: Condvar::new(),
        }
    }

    /// Waits until every job before job `index` in the order has ended,
    /// or the run is stopped (`stop`): a turn that ends when dropped. Job
    /// `index` must be one of the order's.
    pub fn wait(&self, index: usize, stop: &AtomicBool) -> Turn<'_> {
        let position = self.order.partition_point(|&i| i < index);
        let mut done = self.done.lock().unwrap_or_else(PoisonError::into_inner);
        // Woken when a turn ends; the stop flag is seen within a tick.
        while *done < position && !stop.load(Ordering::Relaxed) {
            done = self
                .ended
                .wait_timeout(done, TICK)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        Turn { turns: self }
    }
}

/// A job's turn at standard input: the next job's comes when it is
/// dropped, even by a panic.
pub struct Turn<'a> {
    turns: &'a Turns,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut done = self
            .turns
            .done
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *done += 1;
        self.turns.ended.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_start_a_bounded_number_ahead_of_the_one_taken() {
        let started = AtomicUsize::new(0);
        let mut most = 0;
        in_order(
            100,
            3,
            1,
            |i, job: &Job<'_, usize>| {
                started.fetch_max(i + 1, Ordering::SeqCst);
                job.send(i);
            },
            |i, receiver| {
                // Slow to take: the jobs run ahead as far as they may.
                thread::sleep(Duration::from_millis(1));
                most = most.max(started.load(Ordering::SeqCst) - i);
                assert_eq!(receiver.recv().ok(), Some(i));
                ControlFlow::<()>::Continue(())
            },
        );
        assert!(most <= 3 * AHEAD, "{most}");
    }

    #[test]
    fn results_come_in_order_and_a_break_stops_the_run() {
        let mut seen = Vec::new();
        let stopped = in_order(
            50,
            4,
            1,
            |i, job: &Job<'_, usize>| {
                for k in 0..(50 - i) {
                    if !job.send(i * 1000 + k) {
                        return;
                    }
                }
            },
            |i, receiver| {
                for m in receiver.iter() {
                    seen.push(m);
                }
                if i == 30 {
                    ControlFlow::Break(i)
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert_eq!(stopped, Some(30));
        let expected: Vec<usize> = (0..=30)
            .flat_map(|i| (0..(50 - i)).map(move |k| i * 1000 + k))
            .collect();
        assert_eq!(seen, expected);
    }
}
