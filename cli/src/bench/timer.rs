//! The clock the bench reads: the time-stamp counter on x86_64, as DPDK's
//! `rte_rdtsc` does, and `std::time::Instant` in nanoseconds elsewhere.

use std::time::{Duration, Instant};

/// A monotonic tick counter and how fast it ticks.
pub struct Timer {
    /// Ticks per second: the TSC frequency, estimated at start-up, or 1e9.
    ticks_per_second: f64,
    /// The origin of the nanosecond clock where there is no TSC.
    origin: Instant,
}

impl Timer {
    /// A timer; on x86_64 this spends about 20 ms estimating the TSC
    /// frequency against the system clock (used only to size the samples and
    /// to print it, never to convert the results).
    pub fn new() -> Timer {
        let origin = Instant::now();
        let ticks_per_second = if cfg!(target_arch = "x86_64") {
            let start = Timer::raw_now(origin);
            let wall = Instant::now();
            while wall.elapsed() < Duration::from_millis(20) {}
            let ticks = Timer::raw_now(origin) - start;
            ticks as f64 / wall.elapsed().as_secs_f64()
        } else {
            1e9
        };
        Timer {
            ticks_per_second,
            origin,
        }
    }

    /// The current tick count.
    #[inline(always)]
    pub fn now(&self) -> u64 {
        Timer::raw_now(self.origin)
    }

    #[inline(always)]
    fn raw_now(origin: Instant) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            let _ = origin;
            // SAFETY: RDTSC exists on every x86_64 CPU and only reads the
            // time-stamp counter.
            unsafe { core::arch::x86_64::_rdtsc() }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            origin.elapsed().as_nanos() as u64
        }
    }

    /// Converts a duration to ticks.
    pub fn ticks(&self, duration: Duration) -> f64 {
        duration.as_secs_f64() * self.ticks_per_second
    }

    /// What a tick is, for column headers: "TSC cycles" or "ns".
    pub fn unit(&self) -> &'static str {
        if cfg!(target_arch = "x86_64") {
            "TSC cycles"
        } else {
            "ns"
        }
    }

    /// The unit as the JSON output names it.
    pub fn json_unit(&self) -> &'static str {
        if cfg!(target_arch = "x86_64") {
            "tsc_cycles"
        } else {
            "ns"
        }
    }

    /// One line on how time is measured, for the bench's header.
    pub fn describe(&self) -> String {
        if cfg!(target_arch = "x86_64") {
            format!(
                "rdtsc, TSC at {:.2} GHz (estimated; cycles are TSC cycles, not core clocks)",
                self.ticks_per_second / 1e9
            )
        } else {
            "std::time::Instant in nanoseconds (no TSC on this architecture): \
             the \"cycles\" columns are nanoseconds"
                .to_owned()
        }
    }
}
