//! # monotable-mcp — a Model Context Protocol server for coding agents
//!
//! [`Server`] answers MCP requests with monotable's design tools (lint, validate, cost, show,
//! IaC, codegen, scaffold) and data tools (tables, access patterns by name, entities, Query,
//! PartiQL) over any `aws_sdk_dynamodb::Client`: the embedded engine ([`backend`]) or an
//! endpoint. [`serve_stdio`] and [`serve_http`] run it over the two MCP transports.
//!
//! Architecture Invariant: without [`Options::writable`] no tool that writes is listed or
//! callable, and `partiql` runs only `SELECT` statements; the server never calls a write API
//! of the client then.
//!
//! Module map: `server` (the MCP handler: tool list, dispatch, resources), `catalogue` (every
//! tool's name, description and annotations), `inputs` (their input schemas), the tools in
//! `design_tools`, `scaffold` (`design_new`'s design), `data_tools` (tables, Query, PartiQL),
//! `entities` (reads by the design) and `writes`, `values` (items as plain JSON), `page`
//! (output bounded in size, with a cursor), `resources`, `error` (tool errors that say what to
//! do next), [`backend`] (the embedded engine), `http` (the streamable HTTP listener).

pub mod backend;
mod catalogue;
mod data_tools;
mod design_tools;
mod entities;
mod error;
mod http;
mod inputs;
mod page;
mod resources;
mod scaffold;
mod server;
mod values;
mod writes;

pub use error::ToolError;
pub use http::serve_http;
pub use page::DEFAULT_MAX_OUTPUT;
pub use server::{serve_stdio, CreateTable, Options, Server};
