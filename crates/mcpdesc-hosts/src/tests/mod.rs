//! Hand-written expectations of [`fit_tools_list`](crate::fit_tools_list) per host
//! fact (the rewritten list and the diagnostics a user reads), of the size report and
//! of the host table's lookups.

mod fit;
mod schemas;
mod sizes;
