//! The MCP handler: tools listed by [`crate::catalogue`] (the writing ones only on a writable
//! server), calls parsed against their input schema and dispatched, answers paged, resources.
//!
//! Invariant: a call with bad input, a missing design or a failed request answers a tool
//! result with `isError` that says what to do next; protocol errors are left to what the
//! protocol itself gets wrong (an unknown resource).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use monotable_design::deploy::TableShape;
use monotable_design::Design;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, Implementation, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResult,
    ServerCapabilities, ServerInfo,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::catalogue::{self, TOOLS};
use crate::error::ToolError;
use crate::{data_tools, design_tools, entities, inputs, page, resources, scaffold, writes};

/// Creates the table a design asks for on the client's endpoint (the CLI's `design apply`
/// does it: `crates/cli/src/design/live.rs`), failing with a message for the agent.
pub type CreateTable =
    Arc<dyn Fn(Client, TableShape) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send>> + Send + Sync>;

/// What a server works on.
#[derive(Clone)]
pub struct Options {
    /// The DynamoDB client the data tools call (the embedded engine's or an endpoint's).
    pub client: Client,
    /// Whether the writing tools are listed and `partiql` runs statements other than SELECT.
    pub writable: bool,
    /// The design loaded with `--design`, which design tools use when given none inline.
    pub design: Option<Design>,
    /// Tool output longer than this many bytes is returned a page at a time.
    pub max_output: usize,
    /// What the server runs on, for the instructions (`embedded engine, in memory`, a URL).
    pub label: String,
    /// How `create_table_from_design` creates a table; the tool is listed only with it (and
    /// `writable`).
    pub create_table: Option<CreateTable>,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("writable", &self.writable)
            .field("design", &self.design.as_ref().map(|d| d.table_name("dev")))
            .field("max_output", &self.max_output)
            .field("label", &self.label)
            .field("create_table", &self.create_table.is_some())
            .finish()
    }
}

/// The MCP server. Cheap to clone: each HTTP session gets a clone.
#[derive(Debug, Clone)]
pub struct Server {
    options: Arc<Options>,
}

impl Server {
    pub fn new(options: Options) -> Server {
        Server { options: Arc::new(options) }
    }

    fn design(&self) -> Option<&Design> {
        self.options.design.as_ref()
    }

    fn loaded(&self) -> Result<&Design, ToolError> {
        self.design().ok_or(ToolError::NoDesign)
    }

    /// Whether this server lists (and runs) the tool `spec`.
    fn offers(&self, spec: &catalogue::Spec) -> bool {
        let writes = !spec.writes || self.options.writable;
        writes && (spec.name != "create_table_from_design" || self.options.create_table.is_some())
    }

    /// The names of the tools this server lists.
    pub fn tool_names(&self) -> Vec<&'static str> {
        TOOLS.iter().filter(|s| self.offers(s)).map(|s| s.name).collect()
    }

    /// Runs tool `name` on `arguments`: its full text, and the cursor argument it was given.
    async fn run(&self, name: &str, args: Value) -> Result<(String, Option<String>), ToolError> {
        let Some(spec) = catalogue::find(name) else {
            return Err(ToolError::bad(format!(
                "there is no tool {name:?}; the tools are {}",
                self.tool_names().join(", ")
            )));
        };
        if spec.writes && !self.options.writable {
            return Err(ToolError::bad(format!(
                "{name} writes and this server is read-only: start it with --writable to write"
            )));
        }
        if !self.offers(spec) {
            return Err(ToolError::bad(format!("{name} is not available on this server")));
        }
        let client = &self.options.client;
        let text = |v: Value| serde_json::to_string_pretty(&v).unwrap_or_default();
        let design_of = |inline: &Option<String>| design_tools::resolve(inline.as_deref(), self.design());
        Ok(match name {
            "design_check" => {
                let a: inputs::DesignArg = parse(name, args)?;
                (design_tools::check_design(&design_of(&a.design)?), a.cursor)
            }
            "design_validate" => {
                let a: inputs::Validate = parse(name, args)?;
                (design_tools::validate(&design_of(&a.design)?, &a)?, a.cursor)
            }
            "design_cost" => {
                let a: inputs::Cost = parse(name, args)?;
                (design_tools::cost(&design_of(&a.design)?, &a)?, a.cursor)
            }
            "design_show" => {
                let a: inputs::DesignArg = parse(name, args)?;
                (design_tools::show_markdown(&design_of(&a.design)?), a.cursor)
            }
            "design_iac" => {
                let a: inputs::Iac = parse(name, args)?;
                (design_tools::iac(&design_of(&a.design)?, a.format), a.cursor)
            }
            "design_codegen" => {
                let a: inputs::Codegen = parse(name, args)?;
                (design_tools::codegen(&design_of(&a.design)?, &a)?, a.cursor)
            }
            "design_new" => {
                let a: inputs::New = parse(name, args)?;
                let design = scaffold::design(&a)?;
                let findings = design_tools::check_design(&design);
                (
                    format!(
                        "{}\n# design_check on this design:\n# {}\n",
                        design.to_yaml(),
                        findings.replace('\n', "\n# ")
                    ),
                    a.cursor,
                )
            }
            "list_tables" => {
                let a: inputs::Paged = parse(name, args)?;
                (text(data_tools::list_tables(client).await?), a.cursor)
            }
            "describe_table" => {
                let a: inputs::Describe = parse(name, args)?;
                (text(data_tools::describe_table(client, &a.table).await?), a.cursor)
            }
            "run_access_pattern" => {
                let a: inputs::RunPattern = parse(name, args)?;
                (text(entities::run_pattern(client, self.loaded()?, &a).await?), a.cursor.clone())
            }
            "get_entity" => {
                let a: inputs::EntityKey = parse(name, args)?;
                (text(entities::get_entity(client, self.loaded()?, &a).await?), a.cursor.clone())
            }
            "query" => {
                let a: inputs::Query = parse(name, args)?;
                (text(data_tools::query(client, &a).await?), a.cursor.clone())
            }
            "partiql" => {
                let a: inputs::Partiql = parse(name, args)?;
                (text(data_tools::partiql(client, &a, self.options.writable).await?), a.cursor.clone())
            }
            "put_entity" => {
                let a: inputs::PutEntity = parse(name, args)?;
                (text(writes::put_entity(client, self.loaded()?, &a).await?), None)
            }
            "update" => {
                let a: inputs::Update = parse(name, args)?;
                (text(writes::update(client, self.loaded()?, &a).await?), None)
            }
            "delete" => {
                let a: inputs::EntityKey = parse(name, args)?;
                (text(writes::delete(client, self.loaded()?, &a).await?), None)
            }
            "create_table_from_design" => {
                let a: inputs::CreateTable = parse(name, args)?;
                let design = design_of(&a.design)?;
                let create =
                    self.options.create_table.as_ref().ok_or_else(|| ToolError::bad("unavailable"))?;
                (text(writes::create_table(client, &design, &a, create).await?), None)
            }
            other => return Err(ToolError::bad(format!("{other} is listed but has no implementation"))),
        })
    }

    /// The answer to a `tools/call`: a page of the tool's text, or the error as a tool error.
    pub async fn call(&self, name: &str, args: Value) -> CallToolResult {
        let outcome = self.run(name, args).await.and_then(|(text, cursor)| {
            let (part, next) = page::page(&text, cursor.as_deref(), self.options.max_output)?;
            Ok(page::with_note(name, part, next.as_deref(), text.len()))
        });
        match outcome {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(format!("{name}: {e}"))]),
        }
    }
}

/// `args` as the tool's input struct; a mismatch names the tool's schema.
fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolError> {
    serde_json::from_value(args).map_err(|e| {
        ToolError::bad(format!(
            "invalid arguments: {e}. The tool's input schema (tools/list) names every argument of {tool}"
        ))
    })
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerInfo {
        let mode = if self.options.writable { "writable" } else { "read-only: no tool writes" };
        let design = match self.design() {
            Some(d) => {
                format!("the design {}-{} is loaded (resource {})", d.app, d.model, resources::DESIGN_YAML)
            }
            None => "no design is loaded: pass one inline as `design` to the design tools".to_string(),
        };
        ServerInfo::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("monotable", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "monotable: single-table DynamoDB design tools (design_check, design_validate, design_cost, design_show, design_iac, design_codegen, design_new) and data tools on {} ({mode}); {design}. Long answers come a page at a time: call again with the `cursor` the answer names.",
                self.options.label
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = TOOLS.iter().filter(|s| self.offers(s)).map(|s| s.tool()).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        Ok(self.call(&request.name, args).await)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::list(self.design())))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        match resources::read(&request.uri, self.design()) {
            Some(contents) => Ok(ReadResourceResult::new(vec![contents])),
            None => Err(ErrorData::resource_not_found(
                format!("no resource {}; resources/list names the resources there are", request.uri),
                None,
            )),
        }
    }
}

/// Serves `server` over standard input and output until the client closes them.
pub async fn serve_stdio(server: Server) -> Result<(), std::io::Error> {
    let running = server.serve(rmcp::transport::stdio()).await.map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}
