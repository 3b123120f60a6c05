//! The control plane: CreateTable, DescribeTable, ListTables, DeleteTable (`tables.rs`),
//! UpdateTable (`update_table.rs`), time to live, tags, limits and endpoints (`misc.rs`), with
//! their shared rules: tag rules (`tags.rs`), key names and index keys (`key_names.rs`),
//! multi-attribute GSI keys (`multi_key.rs`) and throughput (`throughput.rs`).

mod key_names;
mod misc;
mod multi_key;
mod tables;
mod tags;
mod throughput;
mod update_table;

pub(in crate::engine) use misc::{
    describe_endpoints, describe_limits, describe_time_to_live, list_tags_of_resource, tag_resource,
    untag_resource, update_time_to_live,
};
pub(in crate::engine) use tables::{create_table, delete_table, describe_table, list_tables, load_catalog};
pub(in crate::engine) use update_table::update_table;
