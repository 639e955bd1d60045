//! The sans-IO core: the [`server::Server`] all connections share, the state machine of one
//! [`connection::Connection`] (the era decided and locked, dispatch, the job table), tasks and
//! the store behind them, the answers it writes, and the sealed `requestState` of 2026-07-28
//! input rounds. No IO, no clock, no runtime: a driver feeds it frames, time and the ends of
//! jobs.

pub(crate) mod answers;
pub mod connection;
pub(crate) mod request_state;
pub mod server;
pub mod store;
pub mod tasks;
