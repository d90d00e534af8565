//! Collecting results costs per row what the row holds, nothing more: a
//! front end visits every row of a table (the Python binding: 100,000
//! flows, 200,000 link directions), so a row's visit must not build its
//! column names and docs again (BRIEF: don't allocate per packet, and what
//! the user feels includes collecting the results).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use airtcp_core::metrics::{Cell as Value, FlowResult, LinkResult, Row};

/// The system allocator, counting this thread's allocations (the test
/// harness's other threads do not count).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by visiting `row` `times` times, reading every cell.
fn allocations_visiting<R: Row>(row: &R, times: usize) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    let mut sum = 0u64;
    for _ in 0..times {
        row.visit(&mut |c, v| {
            sum += c.name.len() as u64;
            if let Value::U64(n) = v {
                sum += n;
            }
        });
    }
    assert!(sum > 0);
    ALLOCATIONS.with(Cell::get) - before
}

/// After a table's first row, visiting rows allocates nothing: the drop
/// columns' names and docs (one per death cause) are built once.
#[test]
fn visiting_result_rows_allocates_nothing_per_row() {
    let flow = FlowResult::default();
    let link = LinkResult::default();
    // The first visit may build the per-table texts once.
    allocations_visiting(&flow, 1);
    allocations_visiting(&link, 1);
    assert_eq!(allocations_visiting(&flow, 1000), 0, "flows table");
    assert_eq!(allocations_visiting(&link, 1000), 0, "links table");
}
